"""Test doubles of the camera's world: synthetic table scenes with exact truth, drawn here."""
