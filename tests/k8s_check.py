"""tests/k8s_check.py RENDERED BUILD_DIR WORK_DIR - checks what `kubectl
kustomize deploy/k8s` rendered (tests/test_k8s.sh runs it):

- the scenes: a StatefulSet with a volume each, behind a headless Service
  that publishes not-ready pods; the gates' --scenes lists its pods by
  name, in shard order, as many as its replicas;
- the gates: a Deployment behind a Service with the clients' port on TCP
  and UDP and the WebSocket port;
- every pod: /healthz readiness, a liveness probe, Prometheus scrape
  annotations naming a port it has, resources, a PodDisruptionBudget;
- the fleet history exporter beside each scene, on the scene's volume,
  its shard from the pod's index;
- every container's command line, with its ConfigMap and Secret files
  written out, passes the real binary's --check-config; and a bad setting
  in the ConfigMap fails it with the reason.
"""
import os
import subprocess
import sys

import yaml

rendered, build, work = sys.argv[1:4]
docs = [d for d in yaml.safe_load_all(open(rendered)) if d]
by_kind = {}
for d in docs:
    by_kind.setdefault(d["kind"], {})[d["metadata"]["name"]] = d
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)


def labels_match(selector, labels):
    return all(labels.get(k) == v for k, v in selector.items())


config_maps = by_kind.get("ConfigMap", {})
scene = by_kind["StatefulSet"]["scene"]
headless = by_kind["Service"][scene["spec"]["serviceName"]]
check(headless["spec"].get("clusterIP") == "None", "the scenes' Service is not headless")
check(headless["spec"].get("publishNotReadyAddresses") is True, "scenes starting up have no DNS name")
check(scene["spec"].get("volumeClaimTemplates"), "the scenes have no volume each")
replicas = scene["spec"]["replicas"]
gate_svc = by_kind["Service"]["gate"]
ports = {(p["port"], p.get("protocol", "TCP")) for p in gate_svc["spec"]["ports"]}
check({(7700, "TCP"), (7700, "UDP"), (7702, "TCP")} <= ports, f"the gate's Service exposes {sorted(ports)}")


def pod_files(spec, name):
    """Writes the pod's ConfigMap and Secret volumes under work/name; returns
    {mount path: local path}, longest first."""
    volumes = {v["name"]: v for v in spec.get("volumes", [])}
    paths = {}
    for c in spec["containers"]:
        for m in c.get("volumeMounts", []):
            v = volumes.get(m["name"], {})
            local = os.path.join(work, name, m["name"])
            if "configMap" in v:
                data = config_maps[v["configMap"]["name"]]["data"]
                os.makedirs(local, exist_ok=True)
                for key, text in data.items():
                    open(os.path.join(local, key), "w").write(text)
                paths[m["mountPath"]] = os.path.join(local, m["subPath"]) if "subPath" in m else local
            elif "secret" in v:
                os.makedirs(local, exist_ok=True)
                open(os.path.join(local, "secret"), "wb").write(os.urandom(32))
                paths[m["mountPath"]] = local
    return dict(sorted(paths.items(), key=lambda kv: -len(kv[0])))


def localize(text, paths):
    for mount, local in paths.items():
        text = text.replace(mount, local)
    return text


def check_config(argv, paths, what):
    for mount, local in paths.items():   # the config files name other mounted files
        if os.path.isfile(local):
            text = localize(open(local).read(), paths)
            open(local, "w").write(text)
    binary = os.path.join(build, {"ticksync-gate": "gate", "ticksync-scene": "scene", "ticksync-export": "scene"}[argv[0]],
                          argv[0])
    args = [binary] + [localize(a, paths) for a in argv[1:]] + ["--check-config"]
    r = subprocess.run(args, capture_output=True, text=True)
    check(r.returncode == 0 and "settings ok" in r.stdout, f"{what}: {' '.join(args)}: {r.returncode} {r.stderr.strip()}")
    return r


workloads = [("StatefulSet", n, d) for n, d in by_kind.get("StatefulSet", {}).items()]
workloads += [("Deployment", n, d) for n, d in by_kind.get("Deployment", {}).items()]
for kind, name, w in workloads:
    tpl = w["spec"]["template"]
    spec, meta = tpl["spec"], tpl["metadata"]
    notes = meta.get("annotations", {})
    container_ports = {p["containerPort"] for c in spec["containers"] for p in c.get("ports", [])}
    check(notes.get("prometheus.io/scrape") == "true" and int(notes.get("prometheus.io/port", 0)) in container_ports,
          f"{kind} {name}: Prometheus annotations")
    pdbs = [p for p in by_kind.get("PodDisruptionBudget", {}).values()
            if labels_match(p["spec"]["selector"]["matchLabels"], meta["labels"])]
    check(len(pdbs) == 1, f"{kind} {name}: {len(pdbs)} PodDisruptionBudgets")
    paths = pod_files(spec, name)
    for c in spec["containers"]:
        ready = c.get("readinessProbe", {}).get("httpGet", {})
        check(ready.get("path") == "/healthz", f"{name}: readiness is not /healthz")
        check("livenessProbe" in c, f"{name}: no liveness probe")
        check(c.get("resources", {}).get("requests"), f"{name}: no resource requests")
        argv = c["command"] + c.get("args", [])
        check_config(argv, paths, f"{kind} {name}")
        if argv[0] == "ticksync-gate":
            conf = open(paths["/etc/ticksync/gate.conf"]).read()
            scenes = [l.split("=", 1)[1].strip() for l in conf.splitlines() if l.startswith("scenes")]
            want = ",".join(f"tcp://scene-{i}.{headless['metadata']['name']}:7710" for i in range(replicas))
            check(scenes == [want], f"the gate's scenes {scenes} are not the {replicas} scene pods in order: {want}")
            # a bad setting: the reason, exit 2
            open(paths["/etc/ticksync/gate.conf"], "w").write(conf.replace(want, "scene-0:7710"))
            binary = os.path.join(build, "gate", "ticksync-gate")
            r = subprocess.run([binary] + [localize(a, paths) for a in argv[1:]] + ["--check-config"],
                               capture_output=True, text=True)
            check(r.returncode == 2 and "scenes: 'scene-0:7710' is not" in r.stderr,
                  f"a bad --scenes: exit {r.returncode}, {r.stderr.strip()}")
        if argv[0] == "ticksync-export":
            env = {e["name"]: e for e in c.get("env", [])}
            index = env.get("TICKSYNC_SHARD", {}).get("valueFrom", {}).get("fieldRef", {}).get("fieldPath")
            check(kind == "StatefulSet" and index == "metadata.labels['apps.kubernetes.io/pod-index']",
                  f"{kind} {name}: the exporter's shard is not its pod's index ({index})")
            mounts = {m["mountPath"]: m for c2 in spec["containers"] for m in c2.get("volumeMounts", [])
                      if m["name"] in [t["metadata"]["name"] for t in w["spec"].get("volumeClaimTemplates", [])]}
            check("/data" in mounts, f"{kind} {name}: the exporter does not see the scene's volume")
        print(f"{kind} {name}: {' '.join(argv)} --check-config: ok")

for f in failures:
    print("FAIL:", f, file=sys.stderr)
sys.exit(1 if failures else 0)
