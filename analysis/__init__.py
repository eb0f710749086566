"""What the pages show about the model, computed without Streamlit: torch in, numpy out.

run.py makes the one record every page reads (a text's tokens, labels, logits and whole trace);
labels.py names tokens and attention kinds; lesson.py, positional.py and lab.py compute the lessons'
and the experiments' numbers from runs and from the metrics in transformer.metrics.
"""
