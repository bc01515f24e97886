// A real board through Web Serial (navigator.serial; Chromium-based browsers, on https or
// localhost): a byte transport for pico_repl.js's RawRepl and the page's terminal, the same
// interface as the emulated Pico's (write(bytes), receiver). Experimental.

export const webSerialAvailable = () => typeof navigator !== "undefined" && "serial" in navigator;

export class SerialTransport {
  /** Ask the user for a port (a MicroPython board's USB serial) and open it. */
  static async open(baudRate = 115200) {
    if (!webSerialAvailable()) throw new Error("this browser has no Web Serial (navigator.serial): use Chrome or Edge, on https or localhost");
    const port = await navigator.serial.requestPort();
    await port.open({ baudRate });
    return new SerialTransport(port);
  }

  constructor(port) {
    this.port = port;
    this.receiver = () => {};
    this.writer = port.writable.getWriter();
    this.reader = port.readable.getReader();
    this.closed = this.pump();
  }

  async pump() {
    try {
      for (;;) {
        const { value, done } = await this.reader.read();
        if (done) return;
        this.receiver(value);
      }
    } catch (error) {
      this.receiver(new TextEncoder().encode(`\r\n[serial port lost: ${error.message}]\r\n`));
    }
  }

  write(bytes) {
    return this.writer.write(bytes);
  }

  async close() {
    await this.reader.cancel();
    await this.closed;
    this.reader.releaseLock();
    this.writer.releaseLock();
    await this.port.close();
  }
}
