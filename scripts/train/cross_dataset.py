#!/usr/bin/python3
"""The flow model's cross-dataset result: its alerts alone, from `npm run eval` reports, into cross-dataset.json.

train.py renders scripts/train/cross-dataset.json into the model card. Each row is one evaluation report (eval/run.ts's
detection-eval.json) of one split, run with one model:

    npm run eval -- --split reporting --out /tmp/after          # with the model of this version
    /usr/bin/python3 scripts/train/cross_dataset.py \\
        --row reporting:1.2.0:/tmp/after/detection-eval.json --row reporting:1.1.0:/tmp/before/detection-eval.json ...

Counted on the alerts whose source is `ml` (the behavioural rules are left out): benign captures with an ML alert, those
alerts by severity; attack captures with an ML alert of a fitting category on the ground truth's addresses (the eval's
`fitting` judgement), and those whose ML alerts on those addresses all have an unfitting category (`wrong`).
"""
import argparse
import json
import os
from collections import OrderedDict

HERE = os.path.dirname(os.path.abspath(__file__))
SEVERITIES = ('low', 'medium', 'high', 'critical')


def ml_row(split, model, path):
    with open(path) as f:
        report = json.load(f)
    row = OrderedDict(split=split, model=model, commit=report['commit'][:12], dirty=report['dirty'], benign=0, benignWithMl=0,
                      benignMlAlerts=OrderedDict((s, 0) for s in SEVERITIES), attacks=0, attacksFittingMl=0, attacksOnlyWrongMl=0)
    for c in report['captures']:
        cap, j = c['capture'], c['judgement']
        if cap['split'] != split:
            continue
        if cap['label'] == 'benign':
            row['benign'] += 1
            ml = [a for a in j.get('alerts', []) if a['source'] == 'ml']
            row['benignWithMl'] += bool(ml)
            for a in ml:
                row['benignMlAlerts'][a['severity']] += 1
        else:
            row['attacks'] += 1
            fitting = any(a['source'] == 'ml' for a in j.get('fitting', []))
            wrong = any(a['source'] == 'ml' for a in j.get('wrong', []))
            row['attacksFittingMl'] += fitting
            row['attacksOnlyWrongMl'] += wrong and not fitting
    return row


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--row', action='append', required=True, help='split:model version:path to detection-eval.json')
    ap.add_argument('--version', required=True, help='the model version this result is for')
    ap.add_argument('--notes', required=True, help='JSON file with the `what`, `reading` and `choices` texts')
    ap.add_argument('--out', default=os.path.join(HERE, 'cross-dataset.json'))
    args = ap.parse_args()
    with open(args.notes) as f:
        notes = json.load(f)
    rows = [ml_row(*r.split(':', 2)) for r in args.row]
    out = OrderedDict(model=OrderedDict(name='vigil-flow', version=args.version), what=notes['what'], rows=rows,
                      reading=notes['reading'], choices=notes['choices'])
    with open(args.out, 'w') as f:
        json.dump(out, f, indent=1)
        f.write('\n')


if __name__ == '__main__':
    main()
