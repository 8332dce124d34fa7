from hwtest import *
def hw(F, v):
    if F['op'] == 'vmad': return spec_vmad(F, v)
    tmp = primary(F, v)
    dsel = v['dsel']
    c = v['ins'][2][0] if len(v['ins']) > 2 and v['ins'][2] else None
    if F['sat']: tmp = sat(tmp, F['dt'], dsel)
    if F['op2']:
        dt = F['at'] if F['op'] == 'vset' else F['dt']
        cc = ext(c, dt, 32)
        return dict(add=tmp + cc, min=min(tmp, cc), max=max(tmp, cc))[F['op2']] & M32
    if dsel == 'h1':
        return ((tmp & 0xffff0000) | (c & 0xffff)) & M32
    if dsel: return merge(dsel, tmp, c)
    return tmp & M32
import collections
forms = [f for f in all_forms() if f.split('.')[0] in ('vadd','vsub','vabsdiff','vmin','vmax','vshl','vshr','vset') and not parse_form(f)['sat'] and not parse_form(f)['op2']]
print('non-sat merge forms:', len(forms)); bad = run(hw, forms=forms, verbose=1)
forms = [f for f in all_forms() if f.startswith('vset') and not f.startswith('vset2') and not f.startswith('vset4')]
print('vset forms:', len(forms)); bad = run(hw, forms=forms, verbose=1)
# vector count predicted for h1 across non-sat
tot=0
for f in all_forms():
    F=parse_form(f) if f.split('.')[0][-1] not in '24' else None
    if not F or F['op']=='vmad' or F['sat'] or F['op2']: continue
    cols, vs = load(f)
    tot += sum(1 for v in vs if hw(F,v)!=v['exp'])
print('h1 (non-sat, no secop) vectors predicted over 384-files:', tot)
tot=0; nf=0
for f in all_forms():
    if not f.startswith('vset.'): continue
    F=parse_form(f)
    if F['op2'] not in ('min','max'): continue
    cols, vs = load(f)
    n = sum(1 for v in vs if hw(F,v)!=v['exp']); tot+=n; nf += n>0
print('vset min/max c-signed vectors:', tot, 'forms', nf)
