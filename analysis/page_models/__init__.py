"""One page model per page: a Streamlit-free function that takes the page's runs and choices and returns a
frozen record of every array, label, number and sentence the page shows.

A module here is named like its page's script in app_pages/ (explorer.pages names both). The page reads its
controls, gets its runs from the cache, calls the model and draws the record; nothing is computed in a page, so
each number is tested here by a unit test rather than through the app (tests/unit/page_models/).
"""
