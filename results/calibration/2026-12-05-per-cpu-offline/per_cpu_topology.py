#!/usr/bin/env python3
"""Offline test (results/calibration/2026-12-05-per-cpu-offline/README.md): a topology with a
node per CPU, built from a calibration with bound ranks. Same-CPU pairs and cross-CPU pairs get
their own alpha and beta (the mean of the per-pair fits `ringlab calibrate` records); the rest
is host-shm's rule: links scaled by cores/N, latency by N/cores, the memory bus unscaled, gamma
as the calibrated topology has it; no footprint curves.
usage: per_cpu_topology.py CALIBRATED.json OUT.json [CONSTANT_OUT.json]
CONSTANT_OUT: the calibrated topology itself with its footprint curves removed (the baseline)."""
import json, sys

cal_path, out_path = sys.argv[1], sys.argv[2]
topo = json.load(open(cal_path))
record = topo['calibration']
cpus = record['rank_cpus']
n = len(cpus)
assert all(c.isdigit() for c in cpus), f'ranks must each be bound to one CPU: {cpus}'
cores = record['parameters']['cores']
scale = min(1.0, cores / n)
classes = {'local': [], 'cross': []}
for pair in record['ping_pong']['pairs']:
    a, b = pair['ranks']
    classes['local' if cpus[a] == cpus[b] else 'cross'].append(pair['fit'])
fit = {}
for name, fits in classes.items():
    assert fits, f'no {name} pair measured'
    fit[name] = (sum(f['alpha_seconds'] for f in fits) / len(fits),
                 sum(f['beta_seconds_per_byte'] for f in fits) / len(fits))
mem_bw = record['parameters']['memory_bandwidth_bytes_per_second']
cpu_ids = sorted(set(int(c) for c in cpus))
nodes = [{'id': r, 'kind': 'endpoint', 'name': f'process{r}'} for r in range(n)]
cpu_node = {}
for c in cpu_ids:
    cpu_node[c] = len(nodes)
    nodes.append({'id': len(nodes), 'kind': 'switch', 'name': f'cpu{c}'})
bus = len(nodes)
nodes.append({'id': bus, 'kind': 'switch', 'name': 'memory-bus', 'capacity': mem_bw})
alpha_c, beta_c = fit['cross']
alpha_l, beta_l = fit['local']
# Routes take the fewest hops, then the least latency: both paths have 2 hops, so a same-CPU
# pair must see a lower latency through its CPU than through the bus to be routed there; its
# measured latency is higher (the two ranks take turns on the CPU), which this test gives up
# (at most alpha per step, under 3 us, on sizes >= 64 KiB).
lat_local = min(alpha_l, 0.99 * alpha_c)
links = []
for r in range(n):
    links.append({'a': r, 'b': bus, 'bandwidth': scale / beta_c, 'latency': alpha_c / 2 / scale})
    links.append({'a': r, 'b': cpu_node[int(cpus[r])], 'bandwidth': scale / beta_l, 'latency': lat_local / 2 / scale})
out = {'schema': 'ringlab.topology/1', 'name': f'per-cpu offline test of {cal_path}', 'endpoints_forward': False,
       'nodes': nodes, 'links': links, 'gamma_seconds_per_byte': topo['gamma_seconds_per_byte']}
json.dump(out, open(out_path, 'w'), indent=1)
print(f'{out_path}: N={n} cores={cores} cpus={cpus} local alpha {alpha_l*1e6:.2f} us 1/beta {1/beta_l/1e9:.2f} GB/s '
      f'({len(classes["local"])} pairs), cross alpha {alpha_c*1e6:.2f} us 1/beta {1/beta_c/1e9:.2f} GB/s '
      f'({len(classes["cross"])} pairs), mem_bw {mem_bw/1e9:.2f} GB/s, gamma {topo["gamma_seconds_per_byte"]:.3g} s/B')
if len(sys.argv) > 3:
    constant = {k: v for k, v in topo.items() if k != 'footprint_curves'}
    json.dump(constant, open(sys.argv[3], 'w'), indent=1)
