"""scripts/sanitizer_xml.py: sanitize.sh's counts from compute-sanitizer's XML records. The
fixtures are records an H200 wrote (tests/fixtures/sanitizer: an out-of-bounds write with the API
errors it caused, a shared-memory race, a clean run), host stacks trimmed."""
import importlib.util
import pathlib

_root = pathlib.Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("sanitizer_xml", _root / "scripts" / "sanitizer_xml.py")
sanitizer_xml = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(sanitizer_xml)
FIXTURES = _root / "tests" / "fixtures" / "sanitizer"
RACE = (FIXTURES / "racecheck-plain-race.xml").read_text()


def test_every_record_but_a_warning_is_an_error(tmp_path):
    # Two access records (level Error) and one API record (no level): memcheck's text summary
    # counts all three, as it counted 32 + 2 as 34 on the H200.
    assert sanitizer_xml.count([FIXTURES / "memcheck-out-of-bounds.xml"], 10**9) == (3, 1, 0, 0)
    assert sanitizer_xml.count([FIXTURES / "clean.xml"], 10**9) == (0, 1, 0, 0)
    warning = RACE.replace("<level>Error</level>", "<level>Warning</level>")
    assert sanitizer_xml.count([_write(tmp_path, warning)], 10**9) == (0, 1, 0, 0)


def test_a_race_between_release_acquire_helpers_only_is_set_aside(tmp_path):
    assert sanitizer_xml.count([FIXTURES / "racecheck-plain-race.xml"], 10**9) == (1, 1, 0, 0)
    ours = RACE.replace("<func>race</func>", "<func>gd::ptx::st_release_cluster_u32</func>", 1) \
               .replace("<func>race</func>", "<func>gd::ptx::ld_acquire_cluster_u32</func>")
    assert sanitizer_xml.count([_write(tmp_path, ours)], 10**9) == (0, 1, 1, 0)
    assert sanitizer_xml.count([_write(tmp_path, ours)], 1) == (1, 1, 0, 0), "at the print limit nothing is set aside"
    mixed = RACE.replace("<func>race</func>", "<func>gd::ptx::st_release_cluster_u32</func>", 1)
    assert sanitizer_xml.count([_write(tmp_path, mixed)], 10**9) == (1, 1, 0, 0), "one plain access keeps it an error"


def test_a_document_cut_off_is_counted_apart(tmp_path):
    cut = _write(tmp_path, RACE[: len(RACE) // 2])
    assert sanitizer_xml.count([cut, FIXTURES / "clean.xml"], 10**9) == (0, 1, 0, 1)


def _write(folder, text):
    path = folder / f"doc-{len(list(folder.iterdir()))}.xml"
    path.write_text(text)
    return path
