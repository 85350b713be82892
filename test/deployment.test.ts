// The deployment files (Dockerfile, compose.yaml, deploy/haproxy.cfg, deploy/kubernetes/) cannot
// be run on this machine (no container runtime), so what can be checked is checked here: every
// environment variable they set is one the configuration reads and the settings pass its checks,
// the port they expose is the one the service listens on, the probes ask /ready and /health, and
// the pieces refer to each other by the right names. HAProxy's configuration is checked by HAProxy.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { parse, parseAllDocuments } from 'yaml';
import { configVariableNames, loadConfig } from '../src/config.js';
import { projectRoot } from '../src/paths.js';
import { fontFaceCss } from '../src/cards/themes/fonts.js';

const read = (file: string) => fs.readFileSync(path.join(projectRoot, file), 'utf8');

/** `${NAME:-default}` / `${NAME:?message}` as Compose would substitute them, with a stand-in for required ones. */
const interpolate = (value: string) =>
  value.replace(/\$\{([A-Z0-9_]+)(?::-([^}]*)|:\?[^}]*)?\}/g, (_, name: string, fallback?: string) => fallback ?? `cw_stand-in-for-${name.toLowerCase()}-0123456789`);

/** The configuration these variables make, or the problems loadConfig finds. */
function assertAccepted(env: Record<string, string>, where: string): void {
  const known = configVariableNames();
  for (const name of Object.keys(env)) assert.ok(known.includes(name), `${where} sets ${name}, which src/config.ts does not read`);
  assert.doesNotThrow(() => loadConfig({ ...env, DATA_DIR: path.join(projectRoot, '.tmp', 'deployment-test') }), where);
}

describe('configVariableNames', () => {
  // The names are what loadConfig asks an empty environment for; a variable read only on some
  // other path (after a setting chose a branch) would be missed, so the source is read too.
  it('lists every variable the configuration names', () => {
    const source = read('src/config.ts') + read('src/cards/storage/s3-config.ts');
    const named = new Set([...source.matchAll(/\b(?:integer|text|oneOf)\('([A-Z0-9_]+)'/g)].map((match) => match[1]!));
    const known = configVariableNames();
    const missing = [...named].filter((name) => !known.includes(name));
    const extra = known.filter((name) => !named.has(name));
    assert.deepEqual({ missing, extra }, { missing: [], extra: [] }, 'a variable loadConfig reads only on some paths: read it on every path, so configVariableNames() sees it');
  });
});

describe('Dockerfile', () => {
  const dockerfile = read('Dockerfile');
  const instructions = dockerfile
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'));
  const lastStage = instructions.map((line) => line.startsWith('FROM ')).lastIndexOf(true);
  const runtime = instructions.slice(lastStage);

  it('builds in one stage and runs from a Debian slim image in another, as a user that is not root', () => {
    const stages = instructions.filter((line) => line.startsWith('FROM '));
    assert.ok(stages.length >= 2, 'multi-stage');
    assert.match(runtime[0]!, /^FROM node:24-\w+-slim$/);
    const user = runtime.filter((line) => line.startsWith('USER ')).at(-1);
    assert.ok(user && !/^USER (root|0)\b/.test(user), `runs as ${user}`);
    assert.ok(runtime.some((line) => line.includes('--from=build') && line.includes('dist')));
    // The fonts' WOFF files, which no face refers to, are not copied into the image.
    assert.ok(instructions.some((line) => /npm prune --omit=dev.*find node_modules -type f -name '\*\.woff' -delete/.test(line)), 'WOFF files deleted after the prune');
    assert.doesNotMatch(fontFaceCss(), /\.woff['")]/, 'no face refers to a WOFF file');
  });

  it('builds and runs on Node 24, the active LTS release, which package.json\'s engines accepts', () => {
    const images = instructions.filter((line) => line.startsWith('FROM ')).map((line) => line.split(/\s+/)[1]!);
    for (const image of images) assert.match(image, /^node:24-bookworm-slim$/, 'every stage');
    const engines = (JSON.parse(read('package.json')) as { engines: { node: string } }).engines.node;
    const majors = engines.split('||').map((range) => /^\^(\d+)\./.exec(range.trim())?.[1]);
    assert.ok(majors.includes('24'), `engines.node (${engines}) admits Node 24`);
  });

  it('runs node dist/server.js, probes /health and exposes the port the service listens on', () => {
    assert.equal(runtime.find((line) => line.startsWith('CMD '))!, 'CMD ["node", "dist/server.js"]');
    // Chromium's helpers, handed to process 1 when their browser exits, are reaped by an init.
    assert.equal(runtime.find((line) => line.startsWith('ENTRYPOINT '))!, 'ENTRYPOINT ["/usr/bin/tini", "--"]');
    assert.ok(runtime.some((line) => line.startsWith('RUN ') && /apt-get install[^&]* tini\b/.test(line)), 'tini is installed');
    const healthcheck = runtime.find((line) => line.startsWith('HEALTHCHECK '));
    assert.ok(healthcheck?.includes('/health'), 'HEALTHCHECK on /health');
    const { MALLOC_MMAP_THRESHOLD_: _allocator, ...env } = dockerEnv();
    assertAccepted(env, 'Dockerfile');
    assert.equal(runtime.find((line) => line.startsWith('EXPOSE ')), `EXPOSE ${loadConfig(env).port}`);
  });

  it('fixes glibc\'s mmap threshold as npm start does, so freed captures leave no fragmented heap', () => {
    const start = (JSON.parse(read('package.json')) as { scripts: { start: string } }).scripts.start;
    const threshold = /^MALLOC_MMAP_THRESHOLD_=(\d+) node dist\/server\.js$/.exec(start)?.[1];
    assert.ok(threshold, `npm start: ${start}`);
    assert.equal(dockerEnv().MALLOC_MMAP_THRESHOLD_, threshold);
  });

  function dockerEnv(): Record<string, string> {
    return Object.fromEntries(
      runtime
        .filter((line) => line.startsWith('ENV '))
        .flatMap((line) => [...line.slice(4).matchAll(/([A-Z_]+)=(\S+)/g)].map((match) => [match[1]!, match[2]!])),
    );
  }
});

describe('compose.yaml', () => {
  const compose = parse(read('compose.yaml'), { merge: true }) as { services: Record<string, any> };
  const replicas = Object.entries(compose.services).filter(([, service]) => service.build === '.');

  it('runs two replicas with S3 storage and Redis, both of which it also runs', () => {
    assert.equal(replicas.length, 2);
    for (const [name, service] of replicas) {
      const env = Object.fromEntries(Object.entries(service.environment as Record<string, string>).map(([key, value]) => [key, interpolate(String(value))]));
      assertAccepted(env, `compose.yaml ${name}`);
      assert.equal(env.STORAGE, 's3');
      assert.equal(new URL(env.REDIS_URL!).hostname, 'redis');
      assert.ok(compose.services.redis, 'a redis service');
      assert.equal(new URL(env.S3_ENDPOINT!).hostname, 'minio');
      assert.ok(compose.services.minio, 'a minio service');
    }
  });

  it('puts HAProxy in front, probing /ready on the port each replica listens on', () => {
    const haproxy = compose.services.haproxy;
    assert.ok(haproxy.volumes.some((volume: string) => volume.startsWith('./deploy/haproxy.cfg:')));
    const config = read('deploy/haproxy.cfg');
    assert.match(config, /option httpchk GET \/ready/);
    assert.match(config, /retry-on [^\n]*conn-failure/);
    assert.match(config, /option redispatch/);
    const servers = [...config.matchAll(/^\s*server (\S+) ([\w.-]+):(\d+)/gm)];
    assert.deepEqual(servers.map((server) => server[2]).sort(), replicas.map(([name]) => name).sort());
    for (const server of servers) assert.equal(Number(server[3]), loadConfig({}).port, 'the default PORT');
  });

  it('is a configuration HAProxy accepts', () => {
    execFileSync('haproxy', ['-c', '-q', '-f', path.join(projectRoot, 'deploy', 'haproxy.cfg')], { stdio: ['ignore', 'ignore', 'pipe'] });
  });
});

describe('deploy/kubernetes', () => {
  const dir = path.join(projectRoot, 'deploy', 'kubernetes');
  const objects = fs
    .readdirSync(dir)
    .filter((file) => file.endsWith('.yaml'))
    .flatMap((file) => parseAllDocuments(fs.readFileSync(path.join(dir, file), 'utf8')).map((document) => document.toJS()))
    .filter((object) => object?.kind);
  const byKind = (kind: string) => objects.filter((object) => object.kind === kind);
  const deployment = byKind('Deployment')[0];
  const container = deployment.spec.template.spec.containers[0];
  const configMap = byKind('ConfigMap')[0];
  const secret = byKind('Secret')[0];
  const env: Record<string, string> = { ...configMap.data, ...secret.stringData };

  it('sets only variables the configuration reads, from the ConfigMap and the Secret, and they pass its checks', () => {
    assertAccepted(env, 'the ConfigMap and Secret');
    assert.deepEqual(container.envFrom.map((source: any) => source.configMapRef?.name ?? source.secretRef?.name).sort(), [configMap.metadata.name, secret.metadata.name].sort());
    assert.equal(loadConfig(env).storage, 's3');
    assert.ok(env.REDIS_URL, 'replicas share Redis');
  });

  it('probes readiness on /ready and liveness on /health, on the port the service listens on', () => {
    const port = container.ports.find((p: any) => p.containerPort === loadConfig(env).port);
    assert.ok(port, `a container port ${loadConfig(env).port}`);
    assert.equal(container.readinessProbe.httpGet.path, '/ready');
    assert.equal(container.livenessProbe.httpGet.path, '/health');
    for (const probe of [container.readinessProbe, container.livenessProbe, container.startupProbe]) assert.ok([port.name, port.containerPort].includes(probe.httpGet.port));
    const service = byKind('Service')[0];
    assert.ok([port.name, port.containerPort].includes(service.spec.ports[0].targetPort));
  });

  it('gives the pod time to drain, memory from measurements, and runs it as a user that is not root', () => {
    const graceSeconds = deployment.spec.template.spec.terminationGracePeriodSeconds;
    assert.ok(graceSeconds * 1000 > loadConfig(env).shutdownGraceMs + 5000, 'the grace period outlasts the preStop pause and SHUTDOWN_GRACE_MS');
    assert.match(container.resources.requests.memory, /^\d+Mi$/);
    assert.ok(container.resources.requests.cpu);
    assert.equal(deployment.spec.template.spec.securityContext.runAsNonRoot, true);
  });

  it('keeps a replica through disruptions and scales on CPU', () => {
    const labels = deployment.spec.template.metadata.labels;
    assert.deepEqual(deployment.spec.selector.matchLabels, labels);
    for (const object of [byKind('PodDisruptionBudget')[0], byKind('Service')[0]]) {
      const selector = object.spec.selector.matchLabels ?? object.spec.selector;
      for (const [key, value] of Object.entries(selector)) assert.equal(labels[key], value, `${object.kind} selects the pods`);
    }
    const hpa = byKind('HorizontalPodAutoscaler')[0];
    assert.equal(hpa.spec.scaleTargetRef.name, deployment.metadata.name);
    assert.equal(hpa.spec.metrics[0].resource.name, 'cpu');
    assert.ok(hpa.spec.minReplicas >= 2);
  });
});
