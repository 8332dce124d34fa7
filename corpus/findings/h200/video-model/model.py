from spec import *

def parse_form(form):
    op, p = form_parts(form)
    F = dict(op=op)
    if op == 'vset':
        F['at'], F['bt'], F['cmp'] = p[0] == 's32', p[1] == 's32', p[2]
        F['dt'] = False; F['sat'] = False
        F['op2'] = p[3] if len(p) > 3 else None
        return F
    F['dt'], F['at'], F['bt'] = p[0] == 's32', p[1] == 's32', p[2] == 's32'
    rest = p[3:]
    F['sat'] = 'sat' in rest
    F['po'] = 'po' in rest
    F['mode'] = next((x for x in rest if x in ('clamp', 'wrap')), None)
    F['scale'] = next((x for x in rest if x in ('shr7', 'shr15')), None)
    F['op2'] = next((x for x in rest if x in ('add', 'min', 'max')), None)
    return F

CMP = dict(eq=lambda a, b: a == b, ne=lambda a, b: a != b, lt=lambda a, b: a < b,
           le=lambda a, b: a <= b, gt=lambda a, b: a > b, ge=lambda a, b: a >= b)

def primary(F, v):
    (a, asel, an), (b, bsel, bn) = v['ins'][0], v['ins'][1]
    op = F['op']
    ta = psel(a, F['at'], asel)
    if op in ('vshl', 'vshr'):
        tb = psel(b, False, bsel)
        tb = min(tb, 32) if F['mode'] == 'clamp' else tb & 31
        return ta << tb if op == 'vshl' else ta >> tb
    tb = psel(b, F['bt'], bsel)
    if op == 'vset':
        return 1 if CMP[F['cmp']](ta, tb) else 0
    return dict(vadd=ta + tb, vsub=ta - tb, vabsdiff=abs(ta - tb), vmin=min(ta, tb), vmax=max(ta, tb))[op]

def spec_scalar(F, v):
    tmp = primary(F, v)
    dsel = v['dsel']
    c = v['ins'][2][0] if len(v['ins']) > 2 and v['ins'][2] else None
    if F['sat']:
        tmp = sat(tmp, F['dt'], dsel)
    if F['op2']:
        cc = ext(c, F['dt'], 32)
        r = dict(add=tmp + cc, min=min(tmp, cc), max=max(tmp, cc))[F['op2']]
        return r & M32
    if dsel:
        return merge(dsel, tmp, c)
    return tmp & M32

def spec_vmad(F, v):
    (a, asel, an), (b, bsel, bn), (c, _, cn) = v['ins']
    ta = psel(a, F['at'], asel); tb = psel(b, F['bt'], bsel)
    nab = an != bn
    sf = F['at'] or F['bt'] or nab or cn
    tmp = ta * tb; lsb = 0
    if F['po']: lsb = 1
    elif nab: tmp = ~tmp; lsb = 1
    elif cn: c = ~c & M32; lsb = 1
    c128 = ext(c, True, 32) if sf else c
    tmp = tmp + c128 + lsb
    if F['scale'] == 'shr7': tmp >>= 7
    if F['scale'] == 'shr15': tmp >>= 15
    if F['sat']:
        lo, hi = ((-(1 << 31), (1 << 31) - 1) if sf else (0, M32))
        tmp = max(lo, min(hi, tmp))
    return tmp & M32

def spec(form, v, F=None):
    F = F or parse_form(form)
    return spec_vmad(F, v) if F['op'] == 'vmad' else spec_scalar(F, v)
