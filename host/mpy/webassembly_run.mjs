// Runs one Python script on MicroPython's WebAssembly port (burn.host.mpy.webassembly).
//
//   node webassembly_run.mjs SPEC.json
//
// SPEC: {"port": path of the port's micropython.mjs, "heap": heap bytes,
//        "files": [[file on this machine, path in the port's filesystem], ...],
//        "code": the script}
// The files are copied into the port's in-memory filesystem (folders made as needed), then
// the script runs. Its output goes to stdout; an exception it raises goes to stderr with
// its traceback and the exit status is 1 (0 for SystemExit(0), as the unix port does).
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const spec = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const { loadMicroPython } = await import(pathToFileURL(spec.port).href);
const mp = await loadMicroPython({
  heapsize: spec.heap,
  stdout: (line) => process.stdout.write(line + "\n"),
  stderr: (line) => process.stderr.write(line + "\n"),
});

function makeDirs(dir) {
  let at = "";
  for (const part of dir.split("/").filter((p) => p)) {
    at += "/" + part;
    if (!mp.FS.analyzePath(at).exists) mp.FS.mkdir(at);
  }
}

for (const [src, dst] of spec.files) {
  makeDirs(path.posix.dirname(dst));
  mp.FS.writeFile(dst, fs.readFileSync(src));
}

let status = 0;
try {
  mp.runPython(spec.code);
} catch (error) {
  if (error.name !== "PythonError") throw error;
  if (error.type === "SystemExit") {
    const code = /SystemExit: (\d+)/.exec(error.message);
    status = code ? Number(code[1]) : 0;
  } else {
    process.stderr.write(error.message);
    status = 1;
  }
}
process.exitCode = status;
