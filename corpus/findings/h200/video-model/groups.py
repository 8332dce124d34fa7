from hwtest import *
import collections
ev = evidence()
g = collections.defaultdict(lambda: [0, 0, 0, []])  # failing forms, failed vectors, total forms in group
for form in all_forms():
    op = form.split('.')[0]
    if op[-1] in '24': continue
    F = parse_form(form)
    if op == 'vmad':
        k = 'G vmad ' + ('.po' if F['po'] else 'no .po')
    elif not F['sat'] and not F['op2']:
        k = 'A merge (no .sat, no secop): ' + ('shift' if op in ('vshl','vshr') else ('vset' if op=='vset' else 'arith'))
    elif op == 'vset':
        k = 'B vset secop ' + ('min/max' if F['op2'] in ('min','max') else 'add')
    elif F['sat'] and not F['op2']:
        k = 'C .sat merge/word: ' + ('shift' if op in ('vshl','vshr') else 'arith')
    elif F['op2'] in ('min', 'max'):
        k = 'E secop min/max ' + ('.sat ' if F['sat'] else '') + ('shift' if op in ('vshl','vshr') else 'arith') + ' dt=' + ('s32' if F['dt'] else 'u32')
    else:
        k = 'H secop add ' + ('.sat' if F['sat'] else '')
    e = g[k]; e[2] += 1
    if form in ev:
        e[0] += 1; e[1] += ev[form]['failed']; e[3].append(form)
for k in sorted(g):
    f, n, t, l = g[k]
    print(f'{k:45} {f:3}/{t:3} forms failed, {n:5} vectors   e.g. {l[:3]}')
print(sum(v[0] for v in g.values()), sum(v[1] for v in g.values()))
