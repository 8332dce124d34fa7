import sys, importlib
from model import *

def evidence():
    fr = failed_rows()
    ev = {}
    for form, r in fr.items():
        if 'Parsing' in (r.get('reason') or ''): continue
        ev[form] = r
    return ev

def run(hw, forms=None, verbose=3, only_ops=None):
    ev = evidence()
    tot_ok = tot = 0
    bad_forms = []
    for form in all_forms():
        op = form.split('.')[0]
        if op[-1] in '24': continue
        if only_ops and op not in only_ops: continue
        if forms and form not in forms: continue
        F = parse_form(form)
        cols, vs = load(form)
        pred = [hw(F, v) for v in vs]
        nmis = sum(1 for p, v in zip(pred, vs) if p != v['exp'])
        r = ev.get(form)
        ok = True; why = []
        if r is None:
            if nmis: ok = False; why.append(f'passed on HW but model predicts {nmis}')
        else:
            shown = {m['index']: m for m in r['mismatches']}
            if not (nmis <= r['failed'] <= nmis + 24):
                ok = False; why.append(f"count: model {nmis} (384) vs HW failed {r['failed']}")
            top = max(shown)
            for i in range(min(top + 1, len(vs))):
                if i in shown:
                    a = int(shown[i]['actual'][0], 16)
                    if pred[i] != a:
                        ok = False; why.append(f"idx {i} {vs[i]['line']} HW {a:08x} model {pred[i]:08x}")
                else:
                    if pred[i] != vs[i]['exp']:
                        ok = False; why.append(f"idx {i} passed on HW ({vs[i]['exp']:08x}) model {pred[i]:08x}: {vs[i]['line']}")
            for i, m in shown.items():
                if i >= len(vs):
                    # an immediate extra: find the vector by its line text
                    line = m['vector'].split('  (')[0].split(' (written')[0].strip()
                    a = int(m['actual'][0], 16)
                    cand = [k for k, v in enumerate(vs) if v['line'] == line]
                    if cand and pred[cand[0]] != a:
                        ok = False; why.append(f"extra {line} HW {a:08x} model {pred[cand[0]]:08x}")
        tot += 1; tot_ok += ok
        if not ok:
            bad_forms.append(form)
            if verbose:
                print('X', form, why[:verbose])
    print(f'{tot_ok}/{tot} forms consistent')
    return bad_forms
