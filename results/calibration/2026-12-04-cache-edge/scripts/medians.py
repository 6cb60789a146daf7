import json,sys,statistics
def meds(f, model='flow-level'):
    d=json.load(open(f))
    out={}
    for r in d['rows']:
        if r['size_bytes']<65536: continue
        out.setdefault(r['algorithm'],[]).append(abs(r['relative_error'][model]))
    return {k:statistics.median(v)*100 for k,v in out.items()}
variants=sys.argv[1].split(',')
for model in ('closed-form','flow-level'):
  print(model)
  for t in sys.argv[2:]:
    m=[meds(f"{t}-{v}-compare.json",model) for v in variants]
    print(' ',t.split('/')[-1], '  '.join(f"{a[:6]}:"+"/".join(f"{x[a]:4.1f}" for x in m) for a in m[0]))
