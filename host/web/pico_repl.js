// MicroPython's raw REPL over any byte transport, for the page's boards: the emulated Pico
// (pico_page.js's EmulatedPico) and a real one through Web Serial (pico_serial.js). It speaks
// the protocol of burn.host.link.raw_repl (MicroPython's pyexec.c, as mpremote does): Ctrl-A
// enters the raw REPL ("raw REPL; CTRL-B to exit\r\n>"); code goes as raw-paste ("\x05A\x01",
// answered "R\x01" and a 2-byte window, flow-controlled by "\x01" bytes) or, on a board
// without it, plainly followed by Ctrl-D (answered "OK"); the board then prints the output,
// "\x04", the traceback if any, "\x04", ">".
//
// A transport has `write(bytes)` (a Uint8Array; may return a promise) and `receiver`, the
// function that hears the board's bytes; the RawRepl sets it while it talks to the board.

const RAW_BANNER = "raw REPL; CTRL-B to exit\r\n>";
const SOFT_REBOOT = "soft reboot\r\n";
const encoder = new TextEncoder();
const decoder = new TextDecoder();

export class LinkError extends Error {}

export class RawRepl {
  constructor(transport, name = "the board") {
    this.transport = transport;
    this.name = name;
    this.rx = [];
    this.rxLength = 0;
    this.waiter = null; // resolves when bytes arrive
    this.usePaste = true;
    transport.receiver = (bytes) => this.received(bytes);
  }

  received(bytes) {
    this.rx.push(...bytes);
    if (this.waiter) this.waiter();
  }

  write(bytes) {
    return this.transport.write(typeof bytes === "string" ? encoder.encode(bytes) : bytes);
  }

  // The next bytes, or false once `deadline` (performance.now() ms) has passed.
  arrival(deadline) {
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), Math.max(0, deadline - performance.now()));
      this.waiter = () => {
        clearTimeout(timer);
        this.waiter = null;
        resolve(true);
      };
    });
  }

  /** The bytes up to and including `marker` (a string), as a string; LinkError after
   * `timeoutMs` with what came. `onData(text)` sees output before the marker as it comes. */
  async readUntil(marker, timeoutMs, doing, onData = null) {
    const deadline = performance.now() + timeoutMs;
    const want = encoder.encode(marker);
    let seen = 0;
    for (;;) {
      const at = find(this.rx, want, Math.max(0, seen - want.length + 1));
      const end = at >= 0 ? at + want.length : this.rx.length;
      if (onData && end > seen) onData(decoder.decode(new Uint8Array(this.rx.slice(seen, at >= 0 ? at : end))));
      if (at >= 0) return decoder.decode(new Uint8Array(this.rx.splice(0, end)));
      seen = end;
      if (!(await this.arrival(deadline))) {
        throw new LinkError(`${this.name} did not answer within ${timeoutMs / 1000} s while ` +
                            `${doing} (got ${JSON.stringify(decoder.decode(new Uint8Array(this.rx.slice(-120))))})`);
      }
    }
  }

  /** Exactly `n` bytes (an array of numbers); LinkError after `timeoutMs`. */
  async readExact(n, timeoutMs, doing) {
    const deadline = performance.now() + timeoutMs;
    while (this.rx.length < n) {
      if (!(await this.arrival(deadline))) {
        throw new LinkError(`${this.name} sent ${JSON.stringify(this.rx)}, expected ${n} bytes, while ${doing}`);
      }
    }
    return this.rx.splice(0, n);
  }

  /** Interrupt whatever runs and enter the raw REPL; LinkError when no MicroPython answers. */
  async enter(timeoutMs = 5000) {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      await this.write("\r\x03\x03");
      this.rx = [];
      await this.write("\r\x01");
      try {
        await this.readUntil(RAW_BANNER, Math.min(deadline - performance.now(), 1500), "entering the raw REPL");
        return;
      } catch (error) {
        if (performance.now() + 200 >= deadline) {
          throw new LinkError(`no MicroPython REPL answered on ${this.name} within ` +
                              `${timeoutMs / 1000} s: ${error.message}`);
        }
        await this.write("\x03\r\x02");
      }
    }
  }

  /** Back to the friendly REPL (Ctrl-B). */
  leave() {
    return this.write("\r\x02");
  }

  /** Ctrl-D at the empty raw REPL: a soft reset (ROMFS is mounted afresh). */
  async softReset(timeoutMs = 30000) {
    await this.write("\x04");
    await this.readUntil(SOFT_REBOOT, timeoutMs, "soft-resetting");
    await this.readUntil(RAW_BANNER, timeoutMs, "waiting for the board to restart");
  }

  /** Run `code` in the raw REPL; {out, err} as strings (err: the traceback, if any). */
  async exec(code, timeoutMs = 60000, onOutput = null) {
    await this.send(encoder.encode(code));
    const out = await this.readUntil("\x04", timeoutMs, "running code", onOutput);
    const err = await this.readUntil("\x04", timeoutMs, "reading the traceback");
    await this.readUntil(">", 10000, "waiting for the prompt");
    return { out: out.slice(0, -1), err: err.slice(0, -1) };
  }

  async send(code) {
    if (this.usePaste) {
      await this.write("\x05A\x01");
      const reply = await this.readExact(2, 2000, "starting raw-paste");
      if (reply[0] === 0x52 && reply[1] === 1) {
        await this.paste(code);
        return;
      }
      this.usePaste = false;
      if (reply[0] === 0x52 && reply[1] === 0) await this.readUntil(">", 2000, "falling back to the plain raw REPL");
      else await this.readUntil(RAW_BANNER, 2000, "falling back to the plain raw REPL");
    }
    for (let i = 0; i < code.length; i += 256) await this.write(code.subarray(i, i + 256));
    await this.write("\x04");
    const reply = decoder.decode(new Uint8Array(await this.readExact(2, 5000, "sending code")));
    if (reply !== "OK") throw new LinkError(`${this.name} answered ${JSON.stringify(reply)} instead of OK to code`);
  }

  async paste(code) {
    const [lo, hi] = await this.readExact(2, 10000, "starting raw-paste");
    const window = lo | (hi << 8);
    let credit = window;
    let i = 0;
    while (i < code.length) {
      while (credit === 0 || this.rx.length) {
        const [flag] = await this.readExact(1, 10000, "sending code (raw-paste)");
        if (flag === 1) credit += window;
        else if (flag === 4) {
          await this.write("\x04"); // the board cut us off
          return;
        } else throw new LinkError(`${this.name} sent byte ${flag} during raw-paste`);
      }
      const piece = code.subarray(i, i + credit);
      await this.write(piece);
      credit -= piece.length;
      i += piece.length;
    }
    await this.write("\x04");
    const ack = await this.readUntil("\x04", 10000, "ending raw-paste"); // credits may precede it
    if (ack.replaceAll("\x01", "") !== "\x04") throw new LinkError(`${this.name} sent ${JSON.stringify(ack)} when raw-paste ended`);
  }
}

function find(haystack, needle, from) {
  outer: for (let i = from; i <= haystack.length - needle.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

/** The value of a Python literal as MicroPython's repr() writes it (dicts, lists, tuples,
 * strings, numbers, None, True, False): how board programs report. SyntaxError otherwise. */
export function parseLiteral(text) {
  const tokens = text.match(/'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|-?[\d.]+(?:e[-+]?\d+)?|None|True|False|[{}[\](),:]|\S/g) || [];
  let k = 0;
  const value = () => {
    const t = tokens[k++];
    if (t === "{" || t === "[" || t === "(") return container(t);
    if (t === "None") return null;
    if (t === "True" || t === "False") return t === "True";
    if (t !== undefined && (t[0] === "'" || t[0] === '"')) return pyString(t);
    if (t !== undefined && /^-?[\d.]/.test(t)) return Number(t);
    throw new SyntaxError(`not a Python literal: ${JSON.stringify(text.slice(0, 200))}`);
  };
  const container = (open) => {
    const close = { "{": "}", "[": "]", "(": ")" }[open];
    const out = open === "{" ? {} : [];
    while (tokens[k] !== close) {
      const item = value();
      if (open === "{") {
        if (tokens[k++] !== ":") throw new SyntaxError("a dict entry without ':'");
        out[item] = value();
      } else out.push(item);
      if (tokens[k] === ",") k++;
      else if (tokens[k] !== close) throw new SyntaxError(`unexpected ${tokens[k]} in a literal`);
    }
    k++;
    return out;
  };
  const result = value();
  if (k !== tokens.length) throw new SyntaxError("text after the literal");
  return result;
}

function pyString(token) {
  const body = token.slice(1, -1);
  return body.replace(/\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|.)/g, (_, e) => {
    if (e[0] === "x" || e[0] === "u") return String.fromCharCode(parseInt(e.slice(1), 16));
    return { n: "\n", r: "\r", t: "\t", "0": "\0" }[e] ?? e;
  });
}
