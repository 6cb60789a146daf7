"""Signed and absolute median flow-level error (sizes >= 64 KiB) per N, algorithm and placement,
pooled over the rounds' A files (the committed model). usage: python3 placement.py OUT"""
import json
import statistics as st
import sys
from collections import defaultdict

out = sys.argv[1]
rounds = sum(1 for _ in open(__file__.replace('placement.py', 'rounds.txt')))
errors = defaultdict(list)
for i in range(1, rounds + 1):
    for row in json.load(open(f'{out}/{i}-A.json'))['rows']:
        if row['size_bytes'] >= 65536:
            errors[(row['nranks'], row['algorithm'], row['placement'])].append(row['relative_error']['flow-level'])
for key in sorted(errors):
    v = errors[key]
    print(f'N={key[0]} {key[1]:<18} {key[2]:<12} rows {len(v):3}  signed median {100 * st.median(v):+6.1f} %  '
          f'|error| median {100 * st.median([abs(x) for x in v]):5.1f} %')
