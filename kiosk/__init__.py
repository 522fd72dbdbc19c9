"""Kiosk mode on a Raspberry Pi: the table companion full screen from power-on, kept up, locked down.

The deployment layer: the systemd units, the udev rule, the boot options and the Kivy settings
as text (:mod:`kiosk.units`); the commands that install them (:mod:`kiosk.install`, which
brings each file, link and edit to what it wants with :mod:`kiosk.installer` and
:mod:`kiosk.edits`), remove them (:mod:`kiosk.uninstall`) and report them (:mod:`kiosk.status`),
on the tree and with the manifest of :mod:`kiosk.target`; asking for a new PIN on the terminal
(:mod:`kiosk.pin_entry`); whether Kivy's SDL2 can draw on the console (:mod:`kiosk.display`);
and the fallback page shown after a crash loop (:mod:`kiosk.fallback`).

The services the app uses under the kiosk live here too: systemd's watchdog notifications
(:mod:`kiosk.watchdog`), the host's requests to power off or leave kiosk mode and the last
error kept for the fallback page (:mod:`kiosk.host`), and the admin PIN's hash and its limit
on wrong tries (:mod:`kiosk.pin`, whose hash parser the config uses). The screens' side stays
in the UI and calls in here: the touch app as the kiosk runs it (:mod:`companion.ui.kiosk_mode`)
and the Settings screen's lock behind the PIN (:mod:`companion.ui.settings`). The screens, the
CLI and the config import this package; it imports neither the CLI nor the screens, nor Kivy,
OpenCV or gpiozero.

This file imports nothing, so that importing :mod:`kiosk.pin` (which the config does) never
loads the installer, which imports the config.
"""
