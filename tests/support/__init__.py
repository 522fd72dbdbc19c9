"""Test helpers: synthetic table scenes with exact truth (the camera's world, drawn here), a toy
game, and a real Mosquitto broker with paho clients (mosquitto.py)."""
