"""Reads and edits an XLIFF file with translate-toolkit, as translators' tools
(Weblate, Pootle, Virtaal) read it.

    xliff_units.py dump FILE          every unit as JSON: id, source, target, note, state
    xliff_units.py edit FILE EDITS    EDITS (JSON {id: new target}) set, file saved
"""

import json
import sys

from translate.storage import xliff


def units(store):
    return [unit for unit in store.units if not unit.isheader()]


def unit_id(unit):
    # translate-toolkit prefixes the <file original> to the id; the element keeps Xcode's own.
    return unit.xmlelement.get("id")


def main():
    command, path = sys.argv[1], sys.argv[2]
    store = xliff.xlifffile.parsefile(path)
    if command == "dump":
        out = []
        for unit in units(store):
            target = unit.target if unit.xmlelement.find(unit.namespaced("target")) is not None else None
            out.append({
                "id": unit_id(unit),
                "source": str(unit.source),
                "target": None if target is None else str(target),
                "note": unit.getnotes() or None,
                "state": unit.get_state_id() if target is not None else None,
            })
        json.dump(out, sys.stdout, ensure_ascii=False)
    elif command == "edit":
        edits = json.loads(sys.argv[3])
        found = set()
        for unit in units(store):
            if unit_id(unit) in edits:
                unit.target = edits[unit_id(unit)]
                unit.markfuzzy(False)
                found.add(unit_id(unit))
        missing = set(edits) - found
        if missing:
            sys.exit("no such units: %s" % sorted(missing))
        store.savefile(path)
    else:
        sys.exit("unknown command " + command)


if __name__ == "__main__":
    main()
