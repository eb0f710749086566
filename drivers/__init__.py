"""How the tests and the benchmarks drive a real server: start it (harness), open it in headless Chromium or speak
Streamlit's protocol from Python (protocol_session), run replicas behind HAProxy (replicas), build hostile
uploads (payloads), type as another learner from a process of its own (typist, hostile) and attack it
(hostile_class); open one page under Streamlit's AppTest (app_test, for tests/app and scripts.store_tables).
tests/ and benchmarks/ both import this package and never each other."""
