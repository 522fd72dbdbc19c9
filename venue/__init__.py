"""The venue layer: a table's state on an MQTT broker, the venue's commands, Home Assistant.

Only this package imports paho-mqtt. :mod:`venue.protocol` is the wire format (topics and
JSON, no network) and :mod:`venue.timers` the timers as it shows them; :mod:`venue.link` is a
table's client, with its :mod:`venue.outbox` in the session database and its
:mod:`venue.discovery` for Home Assistant, made from the config by :mod:`venue.setup`;
:mod:`venue.watch` reads every table, and :mod:`venue.watch_view` draws them.
"""
