"""The classroom: Streamlit pages and Plotly figures, no maths (that lives in ``engine``)."""
