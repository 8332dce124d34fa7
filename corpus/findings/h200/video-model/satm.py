from hwtest import *
def hw(F, v):
    tmp = primary(F, v)
    dsel = v['dsel']
    c = v['ins'][2][0] if len(v['ins']) > 2 and v['ins'][2] else None
    if dsel:
        b = 8 if dsel[0] == 'b' else 16
        mx = (1 << (b - 1)) - 1 if F['dt'] else (1 << b) - 1
        T = min(tmp & M32, mx)
        if dsel == 'h1': return ((T & 0xffff0000) | (c & 0xffff)) & M32
        return merge(dsel, T, c)
    if F['dt']: return sat(tmp, True, None) & M32
    return 0 if tmp < 0 else tmp & M32
forms = [f for f in all_forms() if f.split('.')[0] in ('vadd','vsub','vabsdiff','vmin','vmax') and parse_form(f)['sat'] and not parse_form(f)['op2']]
print(len(forms)); run(hw, forms=forms, verbose=2)
tot=0
for f in forms:
    F=parse_form(f); cols, vs = load(f)
    tot += sum(1 for v in vs if hw(F,v)!=v['exp'])
print('sat arith predicted', tot)
