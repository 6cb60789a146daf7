"""Per-round median |relative error| (sizes >= 64 KiB) of A and B, per algorithm, for both models.
usage: python3 summarize.py OUT  (after run.sh OUT)"""
import json
import statistics as st
import sys
from collections import defaultdict

out = sys.argv[1]
algorithms = ['parameter_server', 'ring', 'interval_paired', 'halving_doubling', 'recursive_doubling']
rounds = sum(1 for _ in open(__file__.replace('summarize.py', 'rounds.txt')))
for model in ['flow-level', 'closed-form']:
    improved, total, medians = defaultdict(int), defaultdict(int), defaultdict(lambda: {'A': [], 'B': []})
    print(model)
    for i in range(1, rounds + 1):
        result = {}
        for variant in 'AB':
            doc = json.load(open(f'{out}/{i}-{variant}.json'))
            errors = defaultdict(list)
            for row in doc['rows']:
                if row['size_bytes'] >= 65536:
                    errors[row['algorithm']].append(abs(row['relative_error'][model]))
            result[variant] = {a: 100 * st.median(errors[a]) for a in errors}
        n = doc['rows'][0]['nranks']
        print(f'  round {i:2} N={n}', ' '.join(f'{a[:4]} {result["A"][a]:.1f}->{result["B"][a]:.1f}' for a in algorithms))
        for a in algorithms:
            total[(n, a)] += 1
            medians[(n, a)]['A'].append(result['A'][a])
            medians[(n, a)]['B'].append(result['B'][a])
            improved[(n, a)] += result['B'][a] < result['A'][a] - 1e-9
    for key in sorted(total):
        m = medians[key]
        print(f'  N={key[0]} {key[1]:<18} B better in {improved[key]} of {total[key]} rounds; median of the round '
              f'medians {st.median(m["A"]):.1f} -> {st.median(m["B"]):.1f} %')
