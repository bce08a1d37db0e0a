"""ARFF loaders (dense, sparse, gzipped; Mulan labels last with XML, MEKA -C header) and the
synthetic source; every bad file gives a one-line error naming the file and the line."""

import gzip

import numpy as np
import pytest

from engine.errors import DataFormatError, InvalidParameterError
from engine.multilabel.data import load_multilabel, read_arff, read_mulan_xml, synthetic_multilabel
from tests.conftest import one_line_error

HEADER = """% a comment
@relation 'tiny'
@attribute f1 numeric
@attribute 'f 2' real
@attribute colour {red,green}
@attribute lab1 {0,1}
@attribute lab2 {0,1}
@data
"""
DENSE = HEADER + "1.5,2,red,1,0\n-3,0.25,green,0,1\n% trailing comment\n0,0,red,1,1\n"
SPARSE = HEADER + "{0 1.5,1 2,3 1}\n{0 -3,1 0.25,2 green,4 1}\n{3 1,4 1}\n"
XML = """<?xml version="1.0" encoding="utf-8"?>
<labels xmlns="http://mulan.sourceforge.net/labels"><label name="lab1"></label><label name="lab2"></label></labels>
"""

X_EXPECT = np.array([[1.5, 2, 0], [-3, 0.25, 1], [0, 0, 0]])
Y_EXPECT = np.array([[1, 0], [0, 1], [1, 1]])


def _check(d):
    np.testing.assert_array_equal(d.X, X_EXPECT)
    np.testing.assert_array_equal(d.Y, Y_EXPECT)
    assert d.label_names == ("lab1", "lab2") and d.feature_names == ("f1", "f 2", "colour")


@pytest.mark.parametrize("text", [DENSE, SPARSE], ids=["dense", "sparse"])
@pytest.mark.parametrize("gz", [False, True], ids=["plain", "gzip"])
def test_read_with_label_count(tmp_path, text, gz):
    p = tmp_path / ("t.arff.gz" if gz else "t.arff")
    p.write_bytes(gzip.compress(text.encode()) if gz else text.encode())
    _check(read_arff(p, 2))


def test_read_with_mulan_xml_beside_the_file(tmp_path):
    (tmp_path / "t.arff").write_text(DENSE)
    (tmp_path / "t.xml").write_text(XML)
    _check(read_arff(tmp_path / "t.arff"))
    assert read_mulan_xml(tmp_path / "t.xml") == ["lab1", "lab2"]


def test_read_meka_header_labels_first(tmp_path):
    text = """@relation 'tiny: -C 2'
@attribute lab1 {0,1}
@attribute lab2 {0,1}
@attribute f1 numeric
@data
1,0,0.5
0,1,-1
"""
    (tmp_path / "m.arff").write_text(text)
    d = read_arff(tmp_path / "m.arff")
    np.testing.assert_array_equal(d.Y, [[1, 0], [0, 1]])
    np.testing.assert_array_equal(d.X, [[0.5], [-1]])
    assert d.name == "tiny"
    (tmp_path / "n.arff").write_text(DENSE.replace("@relation 'tiny'", "@relation 'tiny: -C -2'"))
    _check(read_arff(tmp_path / "n.arff"))  # -C -n: the last n attributes


@pytest.mark.parametrize("body, match", [
    ("1.5,2,red,1\n", "line 9: 4 values; expected 5"),
    ("1.5,x,red,1,0\n", "line 9: value 'x' of attribute 'f 2' is not a number"),
    ("1.5,2,blue,1,0\n", "line 9: value 'blue' is not declared"),
    ("1.5,?,red,1,0\n", "line 9: missing value"),
    ("1.5,2,red,1,0\n{0 1, 9 2}\n", "line 10: sparse index 9 is outside"),
    ("{0 1, 1}\n", "line 9: sparse entry '1' is not 'index value'"),
])
def test_errors_name_file_and_line(tmp_path, body, match):
    one_line_error(DataFormatError, lambda path: read_arff(path, 2), tmp_path / "bad.arff", match, text=HEADER + body)


def test_other_errors(tmp_path):
    with pytest.raises(DataFormatError, match="no such file"):
        read_arff(tmp_path / "none.arff", 2)
    p = tmp_path / "nolab.arff"
    p.write_text(DENSE)
    with pytest.raises(InvalidParameterError, match="number of labels is unknown"):
        read_arff(p)
    with pytest.raises(InvalidParameterError, match="label count must be between"):
        read_arff(p, 9)
    q = tmp_path / "str.arff"
    q.write_text("@relation r\n@attribute s string\n@data\n")
    with pytest.raises(DataFormatError, match="line 2: attribute 's' has type 'string'"):
        read_arff(q, 1)
    r = tmp_path / "lab.arff"
    r.write_text(HEADER.replace("@attribute lab2 {0,1}", "@attribute lab2 numeric") + "1,2,red,1,3\n")
    with pytest.raises(DataFormatError, match="label 'lab2' of example 1 is 3.0"):
        read_arff(r, 2)
    for bad in ("nan", "inf", "-Infinity"):
        f = tmp_path / "nonfinite.arff"
        f.write_text(HEADER + f"1,{bad},red,1,0\n")
        with pytest.raises(DataFormatError, match=r"attribute 'f 2' of example 1 is .*expected a finite number"):
            read_arff(f, 2)
    bom = tmp_path / "bom.arff"
    bom.write_bytes(b"\xef\xbb\xbf" + DENSE.encode())
    _check(read_arff(bom, 2))
    g = tmp_path / "fake.arff.gz"
    g.write_text(DENSE)
    with pytest.raises(DataFormatError, match="named .gz but not a gzip file"):
        read_arff(g, 2)
    x = tmp_path / "t.xml"
    x.write_text("<labels><nothing/></labels>")
    with pytest.raises(DataFormatError, match="no <label"):
        read_mulan_xml(x)


def test_synthetic_source_and_specs():
    d = synthetic_multilabel(50, 5, 4, seed=1)
    assert d.X.shape == (50, 5) and d.Y.shape == (50, 4)
    assert np.array_equal(d.Y, synthetic_multilabel(50, 5, 4, seed=1).Y)
    assert load_multilabel("synthetic").name == "synthetic"
    assert load_multilabel({"synthetic": {"n_examples": 30}}).X.shape[0] == 30
    assert load_multilabel("synthetic", 3).n_labels == 3 and load_multilabel("synthetic", "9").n_labels == 9
    with pytest.raises(InvalidParameterError, match="takes a label count"):
        load_multilabel("synthetic", "labels.xml")
    with pytest.raises(InvalidParameterError):
        load_multilabel({"synthetic": {"bogus": 1}})
    with pytest.raises(InvalidParameterError):
        synthetic_multilabel(10, 3, 1)


def test_real_mulan_files(data_dir):
    for name, shape in (("emotions", (593, 72, 6)), ("yeast", (2417, 103, 14))):
        d = read_arff(data_dir / "multilabel" / f"{name}.arff.gz")
        assert (d.X.shape[0], d.X.shape[1], d.Y.shape[1]) == shape
        d2 = read_arff(data_dir / "multilabel" / f"{name}.arff.gz", shape[2])
        # the XML may list the labels in another order (yeast does); the columns follow the XML
        cols = [d2.label_names.index(n) for n in d.label_names]
        assert np.array_equal(d.Y, d2.Y[:, cols]) and np.array_equal(d.X, d2.X)
