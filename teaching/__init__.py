"""The guided lesson: its steps, its questions (answered by the model), the glossary and the teacher's sheet.
Streamlit-free: numbers come from analysis/, pages draw them through explorer/."""
