"""A small MicroPython driver for a TM1637 4-digit 7-segment display with a colon.

The TM1637 speaks a two-wire protocol that looks like I2C but is not: there is no
device address and bytes go least significant bit first, so it is bit-banged on two
plain pins. Each transfer is a start condition, bytes (each followed by a ninth
"ack" clock), and a stop condition:

- 0x40: data command, write to the display registers with auto-increment;
- 0xC0: address command (digit 0), then one segment byte per digit;
- 0x88 | level: display on at brightness ``level`` (0-7); 0x80 turns it off.

On the usual clock modules the colon is the eighth segment (0x80) of the second digit.
The module needs its own pull-ups on CLK and DIO (the common boards have them); power
it from 3.3 V so those pull-ups never put 5 V on the Pico's pins.
"""

from time import sleep_us

from machine import Pin

# segments: bit 0 = a (top), going clockwise to f, bit 6 = g (middle), bit 7 = colon
_SEGMENTS = {
    "0": 0x3F, "1": 0x06, "2": 0x5B, "3": 0x4F, "4": 0x66,
    "5": 0x6D, "6": 0x7D, "7": 0x07, "8": 0x7F, "9": 0x6F,
    " ": 0x00, "-": 0x40,
}
_COLON = 0x80
_DELAY_US = 10  # half a clock period: well under the chip's 250 kHz limit, even with long wires


class TM1637:
    def __init__(self, clk: Pin, dio: Pin, level: int = 7) -> None:
        self.clk = clk
        self.dio = dio
        self.clk.init(Pin.OUT, value=1)  # both lines idle high
        self.dio.init(Pin.OUT, value=1)
        self._level = max(0, min(7, level))
        self._on = True
        self.show("    ")  # the display's memory holds noise after power-up
        self._control()

    # -- the wire protocol

    def _start(self) -> None:
        # DIO falls while CLK is high
        self.dio(0)
        sleep_us(_DELAY_US)
        self.clk(0)
        sleep_us(_DELAY_US)

    def _stop(self) -> None:
        # DIO rises while CLK is high
        self.dio(0)
        sleep_us(_DELAY_US)
        self.clk(1)
        sleep_us(_DELAY_US)
        self.dio(1)
        sleep_us(_DELAY_US)

    def _write_byte(self, byte: int) -> None:
        for _ in range(8):  # LSB first; the chip samples DIO on CLK's rising edge
            self.dio(byte & 1)
            byte >>= 1
            sleep_us(_DELAY_US)
            self.clk(1)
            sleep_us(_DELAY_US)
            self.clk(0)
        # The ninth clock is the chip's ack: it pulls DIO low. Driving DIO low too
        # means the two never fight; the ack itself is not checked (nothing could be done).
        self.dio(0)
        sleep_us(_DELAY_US)
        self.clk(1)
        sleep_us(_DELAY_US)
        self.clk(0)
        sleep_us(_DELAY_US)

    def _command(self, byte: int) -> None:
        self._start()
        self._write_byte(byte)
        self._stop()

    def _control(self) -> None:
        self._command((0x88 | self._level) if self._on else 0x80)

    # -- the public interface

    def show(self, text: str, colon: bool = False) -> None:
        """Four characters (digits, space, ``-``; anything else shows blank) and the colon.
        It does not turn on a display that :meth:`off` blanked."""
        text = (text + "    ")[:4]
        self._command(0x40)  # write, auto-increment address
        self._start()
        self._write_byte(0xC0)  # from digit 0
        for i in range(4):
            seg = _SEGMENTS.get(text[i], 0)
            if i == 1 and colon:
                seg |= _COLON
            self._write_byte(seg)
        self._stop()

    def brightness(self, level: int) -> None:
        """0 (dimmest, still on) to 7 (brightest)."""
        self._level = max(0, min(7, level))
        self._on = True
        self._control()

    def off(self) -> None:
        """Blank the display. It keeps its digits, and :meth:`show` still updates them;
        :meth:`brightness` turns it on again."""
        self._on = False
        self._control()
