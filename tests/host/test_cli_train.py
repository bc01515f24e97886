"""`burn train`: a zoo model trains on data of its shape, exports as int8 after QAT or PTQ,
and the float / PTQ int8 / QAT int8 scores close metrics.jsonl and appear in `burn plot`;
the QAT score recorded is that of the written .bst, run by the runtime; bad options are
refused before any work."""

import numpy as np
import pytest

import burn
from burn.host.cli import main as burn_main
from burn.host.data.zoo_data import zoo_data
from burn.host.export import nhwc, quantize_input
from burn.host.train import log

QUICK = ["--limit", "32", "--epochs", "1", "--samples", "32", "--dashboard", "plain"]


def test_qat_run_records_float_ptq_and_qat_and_plots_them(tmp_path, capsys):
    run, out = tmp_path / "run", tmp_path / "r8.bst"
    assert burn_main(["train", "resnet8", "--width", "0.125", "--qat", "--qat-epochs", "1",
                      "--export", str(out), "--run-dir", str(run)] + QUICK) == 0
    said = capsys.readouterr().out
    assert "float" in said and "PTQ int8" in said and "QAT int8" in said
    final = log.read(str(run))[-1]
    assert final["final"] == "quantization" and final["export"] == "r8.bst"
    scores = [final[k] for k in ("float_accuracy", "ptq_int8_accuracy", "qat_int8_accuracy")]
    assert all(0.0 <= s <= 1.0 for s in scores)
    model = burn.load(str(out))
    assert model.info()["labels"] == [str(d) for d in range(10)]
    _train, valid = zoo_data("resnet8", "digits", 32)
    spec = model.info()["inputs"][0]
    q = quantize_input(nhwc(valid.x), spec["scale"], spec["zero_point"])
    hits = sum(int(np.argmax(np.array(model.run(x[None]))) == y) for x, y in zip(q, valid.y))
    assert hits / len(valid) == final["qat_int8_accuracy"]
    assert burn_main(["plot", str(run)]) == 0
    png = (run / "quantization.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"


def test_autoencoder_ptq_to_tflite_records_mse(tmp_path):
    run, out = tmp_path / "run", tmp_path / "ae.tflite"
    assert burn_main(["train", "autoencoder", "--data", "synthetic", "--export", str(out),
                      "--run-dir", str(run)] + QUICK) == 0
    assert out.read_bytes()[4:8] == b"TFL3"
    final = log.read(str(run))[-1]
    assert final["float_mse"] > 0 and final["ptq_int8_mse"] > 0
    assert "qat_int8_mse" not in final
    assert log.final_scores(log.read(str(run)))[1][1][0] == "PTQ int8"


@pytest.mark.parametrize("extra, message", [
    (["resnet8", "--qat"], "--qat fine-tunes for the int8 export"),
    (["resnet8", "--export", "m.onnx"], "must end in .bst or .tflite"),
    (["autoencoder", "--width", "0.5"], "autoencoder has the reference's fixed"),
    (["ds_cnn", "--limit", "2"], "limit must be >= 4"),
    (["ds_cnn", "--backend", "bogus"], "--backend 'bogus': no such backend"),
])
def test_bad_options_are_refused_before_any_work(tmp_path, capsys, extra, message):
    run = tmp_path / "run"
    assert burn_main(["train"] + extra + ["--run-dir", str(run)]) == 1
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    if message != "limit must be >= 4":
        assert not run.exists()


def test_help_explains_the_data_and_the_comparison(capsys):
    with pytest.raises(SystemExit):
        burn_main(["train", "--help"])
    text = capsys.readouterr().out
    assert "synthetic" in text and "quantization.png" in text and "49x10x1" in text


@pytest.mark.parametrize("source", ["digits", "synthetic"])
def test_zoo_data_has_each_models_shape(source):
    from burn.host.zoo import INPUT_SHAPES

    for name in ("resnet8", "ds_cnn", "autoencoder"):
        train, valid = zoo_data(name, source, 8)
        assert train.x.shape == (8,) + INPUT_SHAPES[name] and len(valid) == 2
        assert train.x.dtype == np.float32
        if name == "autoencoder":
            np.testing.assert_array_equal(train.x, train.y)
        else:
            assert train.y.dtype == np.int64 and set(train.y) <= set(range(10))
    if source == "digits":  # the same digit pixels, stretched to 49x10 and to 32x32
        kws = zoo_data("ds_cnn", "digits", 8)[0].x[:, 0]
        r8 = zoo_data("resnet8", "digits", 8)[0].x
        rows, cols = np.arange(49) * 8 // 49, np.arange(10) * 8 // 10
        np.testing.assert_array_equal(kws, r8[:, 0][:, 4 * rows][:, :, 4 * cols])
