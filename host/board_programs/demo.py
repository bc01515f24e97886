"""Board program of `burn demo`: classify packed int8 images with a model loaded once."""


def _demo_load(path, batch):
    """Load model `path` with room for the outputs of `batch` images, for `_classify`."""
    global _demo_model, _demo_in, _demo_out, _demo_res
    import burn

    _demo_model = burn.load(path)
    _demo_in = _demo_model.input_buffer()
    _demo_out = _demo_model.outputs()
    _demo_res = bytearray(batch * len(_demo_out))


def _classify(text, n):
    """Classify the `n` images packed in the base64 `text`; print the packed int8 outputs in
    base64, the microseconds spent in inference and the fastest single inference."""
    import binascii
    import time

    src = memoryview(binascii.a2b_base64(text))
    res = memoryview(_demo_res)
    k = len(_demo_in)
    o = len(_demo_out)
    spent = 0
    best = 1 << 30
    for i in range(n):
        _demo_in[:] = src[i * k:(i + 1) * k]
        t = time.ticks_us()
        _demo_model.invoke()
        d = time.ticks_diff(time.ticks_us(), t)
        spent += d
        best = min(best, d)
        res[i * o:(i + 1) * o] = _demo_out
    print(binascii.b2a_base64(res[:n * o]).decode().strip(), spent, best)
