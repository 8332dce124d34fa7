import sys
from model import *
bad = 0; n = 0
for form in all_forms():
    op = form.split('.')[0]
    if op[-1] in '24': continue
    cols, vs = load(form)
    for v in vs:
        n += 1
        s = spec(form, v)
        if s != v['exp']:
            bad += 1
            if bad < 15: print(form, v['line'], hex(s))
print(n, 'vectors', bad, 'differ')
