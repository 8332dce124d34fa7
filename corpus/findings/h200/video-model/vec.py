import gzip, json, os, re
VDIR = '/work/wt-h200-video/corpus/vectors/9.7.18'
M32 = 0xffffffff

def parse_op(tok):
    neg = tok.startswith('-')
    if neg: tok = tok[1:]
    if '.' in tok:
        v, sel = tok.split('.', 1)
    else:
        v, sel = tok, None
    return (int(v, 16), sel, neg)

def load(form):
    p = os.path.join(VDIR, form + '.vec.gz')
    cols = None; out = []
    for line in gzip.open(p, 'rt'):
        if line.startswith('# columns:'):
            cols = line.split(':', 1)[1].split('->')[0].split()
        if line.startswith('#') or not line.strip():
            continue
        out.append(parse_line(line, cols))
    return cols, out

def parse_line(line, cols):
    t = line.split()
    i = 0
    dsel = None
    has_d = cols[0].startswith('d.sel')
    if has_d:
        d = t[0]; dsel = d[2:] if '.' in d else None; i = 1
    nin = len(cols) - (1 if has_d else 0)
    ins = []
    for k in range(nin):
        ins.append(None if t[i + k] == '_' else parse_op(t[i + k]))
    exp = int(t[i + nin], 16)
    tag = t[i + nin + 1]
    return dict(dsel=dsel, ins=ins, exp=exp, tag=tag, line=line.strip())

def form_parts(form):
    f = form.split('.')
    return f[0], f[1:]

def failed_rows():
    rows = [json.loads(l) for l in open('/work/gpu-data/failed.jsonl')]
    return {r['form']: r for r in rows if r['family'] == '9.7.18'}

def all_forms():
    return sorted(x[:-7] for x in os.listdir(VDIR))
