"""The touch app (Kivy): the only package that imports kivy."""
