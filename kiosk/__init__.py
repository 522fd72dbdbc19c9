"""Kiosk mode on a Raspberry Pi: the table companion full screen from power-on, kept up, locked down.

Deployment only: the systemd units, the udev rule, the boot options and the Kivy settings as
text (:mod:`kiosk.units`), the installer that writes and removes them (:mod:`kiosk.install`),
whether Kivy's SDL2 can draw on the console (:mod:`kiosk.display`), and the fallback page shown
after a crash loop (:mod:`kiosk.fallback`). The app's side of the kiosk (the watchdog, the lock,
the admin PIN) lives in ``companion``; nothing here imports Kivy, OpenCV or gpiozero.
"""
