"""The venue layer: a table's state on an MQTT broker, the venue's commands, Home Assistant.

Only this package imports paho-mqtt. :mod:`venue.protocol` is the wire format (topics and
JSON, no network); :mod:`venue.link` is a table's client; :mod:`venue.watch` reads every table.
"""
