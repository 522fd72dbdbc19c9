"""The timer accessory's firmware: a Raspberry Pi Pico (or Pico W) running MicroPython.

Copy this file, ``accessory_proto.py``, ``accessory_link.py``, ``accessory_device.py`` and
``tm1637.py`` flat onto the Pico; MicroPython runs ``main.py`` at power-up.
``docs/accessory-firmware.md`` has the parts, the wiring and the steps;
``docs/accessory-protocol.md`` is the protocol.

All the logic lives in ``accessory_device.Device``, the same code the host's simulator
runs. This file only moves bytes between USB and the Device, reads the button, and
shows what the Device says on the display, the LEDs and the buzzer.

Hold the button down while plugging the Pico in to skip the accessory and get a normal
MicroPython REPL (see ``run``: the accessory turns Ctrl-C off).
"""

import binascii
import select
import sys
import time

import accessory_proto as proto
import machine
import micropython
import tm1637
from accessory_device import ButtonTracker, Device
from machine import PWM, Pin

# -- pins: GPIO numbers (GPn), not the header's pin numbers -------------------------------

DISPLAY_CLK = 2  # TM1637 CLK (header pin 4)
DISPLAY_DIO = 3  # TM1637 DIO (header pin 5)

# The LED bar: one WS2812 ("NeoPixel") stick on one data pin, or plain LEDs, one pin each.
USE_WS2812 = True
WS2812_DATA = 6  # the stick's DIN (header pin 9)
WS2812_COUNT = 8
# Plain LEDs, each through a 330 ohm resistor to GND. The first is the last to go out.
# GP6 doubles as the first one: the stick and the plain LEDs are never fitted together.
LED_PINS = (6, 7, 8, 9, 10, 11, 12, 13)

BUZZER = 15  # passive buzzer, driven with PWM at the tone's frequency (header pin 20)
BUTTON = 14  # momentary button to GND; the internal pull-up makes it active low (header pin 19)
STATUS_LED = "LED"  # the on-board LED (GP25 on a Pico, on the radio chip on a Pico W)

# -- settings ----------------------------------------------------------------------------------

FIRMWARE = "pico-1.0"
CAPABILITIES = proto.CAP_DISPLAY | proto.CAP_LEDS | proto.CAP_BUZZER | proto.CAP_TONES | proto.CAP_BUTTON
LED_COUNT = WS2812_COUNT if USE_WS2812 else len(LED_PINS)
RENDER_MS = 20  # redraw at most 50 times a second: faster than the eye, light on the loop
MAX_READ = 128  # bytes taken from USB per pass, so a flood cannot starve the button and display
# A WS2812 channel's value at 100 % brightness. 255 is glaring at arm's length, and each
# colour of each LED then draws up to about 20 mA from the USB power.
WS2812_MAX = 160
BUZZER_DUTY = 32768  # a square wave: the loudest a passive buzzer gets

# The bar's colour by the share of time left (the share of LEDs lit): (more than, (r, g, b)).
COLOURS = ((0.5, (0, 255, 0)), (0.25, (255, 110, 0)), (0.0, (255, 0, 0)))


class Clock:
    """Milliseconds since start that never wrap.

    ``time.ticks_ms()`` wraps (after about 12 days on the RP2040), and the Device needs
    a count that only goes up, so the differences are added into a Python int.
    """

    def __init__(self) -> None:
        self._last = time.ticks_ms()
        self.ms = 0

    def now(self) -> int:
        ticks = time.ticks_ms()
        self.ms += time.ticks_diff(ticks, self._last)
        self._last = ticks
        return self.ms


class Leds:
    """The LED bar: how many are lit, in a colour by how many, dimmed by the brightness."""

    def __init__(self) -> None:
        self._shown = None
        if USE_WS2812:
            import neopixel  # only on this path: a plain-LED build need not have it

            self._strip = neopixel.NeoPixel(Pin(WS2812_DATA), WS2812_COUNT)
        else:
            # PWM on every plain LED, so they dim with the brightness like the stick does.
            # GP6-GP13 are four PWM slices, each pin its own channel.
            self._pwms = []
            for number in LED_PINS:
                pwm = PWM(Pin(number))
                pwm.freq(1000)
                pwm.duty_u16(0)
                self._pwms.append(pwm)
        self.show(0, 0)

    def show(self, lit: int, brightness: int) -> None:
        if (lit, brightness) == self._shown:
            return  # the stick's write blocks interrupts; skip it when nothing changed
        self._shown = (lit, brightness)
        if USE_WS2812:
            colour = (0, 0, 0)
            for above, rgb in COLOURS:
                if lit > above * LED_COUNT:
                    colour = rgb
                    break
            scale = WS2812_MAX * brightness
            dimmed = (colour[0] * scale // 25500, colour[1] * scale // 25500, colour[2] * scale // 25500)
            for i in range(WS2812_COUNT):
                self._strip[i] = dimmed if i < lit else (0, 0, 0)
            self._strip.write()
        else:
            duty = 65535 * brightness // 100
            for i in range(len(self._pwms)):
                self._pwms[i].duty_u16(duty if i < lit else 0)

    def off(self) -> None:
        self._shown = None
        self.show(0, 0)


class Buzzer:
    """A passive buzzer on PWM: the frequency is the tone, half duty sounds it, 0 is silence."""

    def __init__(self) -> None:
        self._pwm = PWM(Pin(BUZZER))
        self._pwm.duty_u16(0)
        self._hz = 0

    def tone(self, hz: int) -> None:
        if hz == self._hz:
            return  # reprogramming the PWM 1000 times a second for the same tone only risks glitches
        self._hz = hz
        if hz:
            self._pwm.freq(hz)
            self._pwm.duty_u16(BUZZER_DUTY)
        else:
            self._pwm.duty_u16(0)

    def off(self) -> None:
        self._hz = 0
        self._pwm.duty_u16(0)


class Outputs:
    """Everything the Device shows, each touched only when what it shows changes."""

    def __init__(self) -> None:
        self.display = tm1637.TM1637(Pin(DISPLAY_CLK), Pin(DISPLAY_DIO))
        self.leds = Leds()
        self.buzzer = Buzzer()
        # On a Pico W this LED hangs off the radio chip, so it is slow: set it on change only.
        self.status = Pin(STATUS_LED, Pin.OUT)
        self.status.value(0)
        self._text = None
        self._brightness = -1
        self._link = False

    def render(self, device: "Device", now: int) -> None:
        brightness = device.brightness
        if brightness != self._brightness:
            self._brightness = brightness
            if brightness == 0:
                self.display.off()
            else:
                self.display.brightness((brightness * 7 + 50) // 100)  # 0-100 % onto 0-7
        text = device.display(now)
        if text != self._text:
            self._text = text
            self.display.show(text[0], text[1])
        self.leds.show(device.lit_leds(now), brightness)
        link = not device.is_host_lost(now)
        if link != self._link:
            self._link = link
            self.status.value(1 if link else 0)

    def off(self) -> None:
        self.buzzer.off()
        self.leds.off()
        self.display.off()
        self.status.value(0)


def read_available(poller: "select.poll") -> bytes:
    """The bytes USB has ready now, without waiting.

    ``sys.stdin.buffer.read(n)`` blocks until it has all *n* bytes, and MicroPython
    cannot say how many are waiting, so it reads one byte each time the poller says
    there is one.
    """
    data = bytearray()
    while len(data) < MAX_READ:
        events = poller.poll(0)
        if not events or not events[0][1] & select.POLLIN:
            break
        data.extend(sys.stdin.buffer.read(1))
    return bytes(data)


def run(button: Pin) -> None:
    # The USB serial port is also MicroPython's REPL, which turns a received 0x03 (Ctrl-C)
    # into a KeyboardInterrupt. Protocol frames may hold that byte, so the accessory turns
    # the Ctrl-C handling off. That also stops `mpremote` from breaking in to copy new
    # files: hold the button while plugging in to skip this program (see the end of this
    # file), or, as a last resort, wipe the board from BOOTSEL with flash_nuke.uf2 and
    # flash MicroPython again.
    micropython.kbd_intr(-1)
    outputs = Outputs()
    device = Device(binascii.hexlify(machine.unique_id()).decode(), FIRMWARE, CAPABILITIES, LED_COUNT)
    tracker = ButtonTracker()
    poller = select.poll()
    poller.register(sys.stdin, select.POLLIN)
    out = sys.stdout.buffer  # the raw stream: sys.stdout would turn "\n" into "\r\n"
    clock = Clock()
    last_render = -RENDER_MS
    try:
        device.boot(clock.now())
        while True:
            now = clock.now()
            data = read_available(poller)
            if data:
                device.feed(data, now)
            frames = device.poll(now)
            if frames:
                out.write(frames)
            for kind in tracker.update(button.value() == 0, now):
                device.button(kind, now)
            # The buzzer follows every pass: its steps are as short as 50 ms, and it is
            # only touched when the tone changes.
            outputs.buzzer.tone(device.tone_hz(now))
            if now - last_render >= RENDER_MS:
                last_render = now
                outputs.render(device, now)
            if not data:
                time.sleep_ms(1)  # idle a little; the host's frames wait in the USB buffer
    finally:
        # Whatever stopped the loop, leave nothing beeping or lit, then let the error
        # show at the REPL with Ctrl-C working again.
        outputs.off()
        micropython.kbd_intr(3)


_button = Pin(BUTTON, Pin.IN, Pin.PULL_UP)
time.sleep_ms(10)  # let the pull-up charge the button's wire before reading it
if _button.value() == 0:
    print("accessory: button held at start, not running; the REPL is free (Ctrl-C works)")
else:
    run(_button)
