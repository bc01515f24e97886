// The page's emulated Pico, in a Web Worker so that the page stays responsive: burn's board
// (pico/emulator/pico_machine.mjs, the module the Node board runs) on rp2040js
// (pico/rp2040js/, the npm package's ES modules). Messages from the page:
//   {type: "boot", rom, flash}         power on with these bytes (ArrayBuffers)
//   {type: "serial", data}             bytes typed into the board's USB serial
//   {type: "write", offset, erase, data, id}  erase `erase` bytes of flash from `offset`,
//                                      then program `data` there (as a flasher would)
// Messages to the page: {type: "usb"} once USB is up, {type: "serial", data},
// {type: "written", id}, {type: "halt", why}.
import * as lib from "./pico/rp2040js/index.js";
import { PicoMachine } from "./pico/emulator/pico_machine.mjs";

let pico = null;

self.onmessage = ({ data: m }) => {
  if (m.type === "boot") {
    pico = new PicoMachine(lib, new Uint8Array(m.rom), new Uint8Array(m.flash), {
      onSerial: (bytes) => self.postMessage({ type: "serial", data: new Uint8Array(bytes) }),
      onUsb: () => self.postMessage({ type: "usb" }),
      onHalt: (why) => self.postMessage({ type: "halt", why }),
    });
    pico.start();
  } else if (m.type === "serial") {
    pico.send(new Uint8Array(m.data));
  } else if (m.type === "write") {
    pico.flash.fill(0xff, m.offset, m.offset + m.erase);
    pico.flash.set(new Uint8Array(m.data), m.offset);
    self.postMessage({ type: "written", id: m.id });
  }
};
