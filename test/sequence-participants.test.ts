// Participant names and block labels of a sequence diagram laid out narrower are broken between
// words and at the parts of a word (src/cards/diagrams/sequence-participants.ts), not hyphenated by
// Mermaid inside one; the order of the participants stays Mermaid's.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { blockLabelsBroken, participantNamesBroken } from '../src/cards/diagrams/sequence-participants.js';

describe('participant names broken for narrow boxes', () => {
  it('declares every participant first, in the order they first appear, with names broken at their parts', () => {
    const body = ['sequenceDiagram', '    Client->>AuthenticationGateway: log in', '    participant HealthCheck', '    AuthenticationGateway->>HealthCheck: up?', '    actor user_account_manager', '    HealthCheck-->>Client: yes'].join('\n');
    assert.equal(
      participantNamesBroken(body, 100),
      [
        'sequenceDiagram',
        'participant Client',
        'participant AuthenticationGateway as Authentication<br/>Gateway',
        'participant HealthCheck as Health<br/>Check',
        'actor user_account_manager as user_<br/>account_<br/>manager',
        '    Client->>AuthenticationGateway: log in',
        '    AuthenticationGateway->>HealthCheck: up?',
        '    HealthCheck-->>Client: yes',
      ].join('\n'),
    );
  });

  it('leaves a label whose words fit to Mermaid, and breaks a Chinese name between its phrases without a hyphen', () => {
    const body = 'sequenceDiagram\n  participant G as Payment Gateway Service\n  G->>外卖平台订单调度中心服务: 下单';
    const [, gateway, chinese] = participantNamesBroken(body, 100).split('\n');
    assert.equal(gateway, 'participant G as Payment Gateway Service', 'Mermaid wraps it between its words');
    // Phrases whole ("调度中心", never "订 / 单"), up to five characters of 14 px on a line.
    assert.equal(chinese, 'participant 外卖平台订单调度中心服务 as 外卖<br/>平台订单<br/>调度中心<br/>服务');
  });

  it('hyphenates only a part far wider than the box', () => {
    const [, , service] = participantNamesBroken('sequenceDiagram\n  Client->>InternationalizationService: translate', 100).split('\n');
    assert.match(service!, /as Internati-<br\/>onalizati-<br\/>on/);
  });

  it('leaves a diagram alone whose names fit, or that it does not read well (boxes, created participants, settings)', () => {
    for (const body of [
      'sequenceDiagram\n  Alice->>John: Hello John, how are you?\n  John-->>Alice: Great!',
      'sequenceDiagram\n  box Services\n  participant AuthenticationGateway\n  end\n  AuthenticationGateway->>Bob: hi',
      'sequenceDiagram\n  Alice->>Bob: hi\n  create participant AuthenticationGateway\n  Bob->>AuthenticationGateway: hi',
      'sequenceDiagram\n  participant AuthenticationGateway@{ "type": "database" }\n  AuthenticationGateway->>Bob: hi',
    ]) {
      assert.equal(participantNamesBroken(body, 100), body);
    }
  });
});

describe('block labels broken for the participants they span', () => {
  it('breaks a label at the parts of its words for the width of its block, and leaves the rest to Mermaid', () => {
    const body = [
      'sequenceDiagram',
      'Alice->>John: Hello John, how are you?',
      'loop HealthCheck',
      '    John->>John: Fight against hypochondria',
      'end',
      'alt UserSignedIn',
      '  Alice->>Bob: yes',
      'else TokenExpiredOrRevoked',
      '  Note over Alice,Bob: no',
      'end',
      'loop every minute until the check passes',
      '  Alice->>Bob: ping',
      'end',
      'rect rgb(1, 2, 3)',
      '  opt 用户认证网关检查',
      '    Bob->>Bob: 好',
      '  end',
      'end',
    ].join('\n');
    const lines = blockLabelsBroken(body, 100, 20).split('\n');
    // Around one participant: the least room. Over three (Alice to Bob): two gaps' width less the tag.
    assert.equal(lines[2], 'loop Health<br/>Check');
    assert.equal(lines[5], 'alt UserSignedIn');
    assert.equal(lines[7], 'else TokenExpiredOr<br/>Revoked');
    assert.equal(lines[10], 'loop every minute until the check passes', 'its words fit: Mermaid wraps it between them');
    assert.equal(lines[13], 'rect rgb(1, 2, 3)', 'a colour, not a label');
    assert.equal(lines[14], '  opt 用户<br/>认证<br/>网关<br/>检查', 'between phrases');
    assert.deepEqual(
      lines.filter((_, index) => ![2, 7, 14].includes(index)),
      body.split('\n').filter((_, index) => ![2, 7, 14].includes(index)),
    );
  });

  it('leaves a block that holds no message, a label with its own breaks, and diagrams it does not read well', () => {
    for (const body of [
      'sequenceDiagram\n  loop HealthCheckOfEverything\n  end',
      'sequenceDiagram\n  loop Health<br/>CheckOfEverything\n    A->>A: hi\n  end',
      'sequenceDiagram\n  box Services\n  participant A\n  end\n  loop HealthCheckOfEverything\n    A->>A: hi\n  end',
    ]) {
      assert.equal(blockLabelsBroken(body, 100, 20), body);
    }
  });
});

describe('participant names broken, on generated diagrams', () => {
  // Mermaid reads a hyphen in a message line as the start of its arrow: ids have none (labels may).
  const ids = ['Client', 'AuthenticationGateway', 'HealthCheck', 'db', 'user_account_manager', 'OrderService2', '外卖平台订单调度中心服务', 'Internationalization', 'A', '김철수'];
  const line = fc.oneof(
    fc.record({ kind: fc.constant('declare' as const), keyword: fc.constantFrom('participant', 'actor'), id: fc.constantFrom(...ids), label: fc.option(fc.constantFrom('Payment Gateway Service', 'Ödeme Sistemi', '订单服务', 'OAuthTokenRefresher', 'order-service-gateway'), { nil: undefined }) }),
    fc.record({ kind: fc.constant('message' as const), from: fc.constantFrom(...ids), to: fc.constantFrom(...ids), arrow: fc.constantFrom('->>', '-->>', '->', '-x', '-)', '->>+', '-->>-'), text: fc.constantFrom('hi', 'a request of a few words', '下单') }),
    fc.constantFrom('    loop every minute', '    end', '    Note over Client: a note', '    Note right of HealthCheck: a note', '    Note over db,AuthenticationGateway: a note', '    autonumber'),
  );
  type Entry = string | { kind: 'declare'; keyword: string; id: string; label?: string } | { kind: 'message'; from: string; to: string; arrow: string; text: string };
  const write = (entry: Entry): string =>
    typeof entry === 'string'
      ? entry
      : entry.kind === 'declare'
        ? `    ${entry.keyword} ${entry.id}${entry.label ? ` as ${entry.label}` : ''}`
        : `    ${entry.from}${entry.arrow}${entry.to}: ${entry.text}`;

  it('keeps every line that is not a declaration, in order, the participants in the order they first appear, and every name whole', () => {
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 14 }), (entries) => {
        const body = ['sequenceDiagram', ...entries.map(write)].join('\n');
        const result = participantNamesBroken(body, 100);
        if (result === body) return;
        const isDeclaration = (text: string) => /^\s*(participant|actor)\s/.test(text);
        const [type, ...rest] = result.split('\n');
        assert.equal(type, 'sequenceDiagram');
        const declarations = rest.filter(isDeclaration);
        // The rest of the body, as written, after the declarations.
        assert.deepEqual(rest.slice(declarations.length), body.split('\n').slice(1).filter((text) => !isDeclaration(text)));
        // Each participant declared once, in the order of first appearance, with its name whole.
        const firstSeen: string[] = [];
        const names = new Map<string, string>();
        for (const entry of entries) {
          // A note brings its participant in where it stands, as a message does.
          const noted = typeof entry === 'string' ? /Note (?:over|right of|left of) ([^:]+):/.exec(entry)?.[1]?.split(',') : undefined;
          for (const id of noted ?? []) if (!firstSeen.includes(id)) firstSeen.push(id);
          if (typeof entry === 'string') continue;
          const seen = entry.kind === 'declare' ? [entry.id] : [entry.from, entry.to];
          for (const id of seen) if (!firstSeen.includes(id)) firstSeen.push(id);
          // Mermaid's rule: a later label replaces the name, a later declaration without one does not.
          if (entry.kind === 'declare' && (entry.label !== undefined || !names.has(entry.id))) names.set(entry.id, entry.label ?? entry.id);
        }
        assert.deepEqual(declarations.map((text) => /^\S+ (\S+)/.exec(text)![1]), firstSeen);
        for (const text of declarations) {
          const [, id, shown] = /^\S+ (\S+)(?: as (.+))?$/.exec(text)!;
          const name = names.get(id!) ?? id!;
          // The same characters, but for the line breaks and the hyphens of a word cut in two.
          assert.equal((shown ?? id!).replace(/<br\/>/g, '').replace(/[\s-]+/g, ''), name.replace(/[\s-]+/g, ''), text);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('block labels broken, on generated diagrams', () => {
  const ids = ['Client', 'AuthenticationGateway', 'HealthCheck', 'db', '外卖平台订单调度中心服务', 'A'];
  const labels = ['HealthCheck', 'every minute', 'TokenExpiredOrRevoked', 'user_account_refresh_job', '用户认证网关检查通过之后', 'InternationalizationService', 'x'];
  const line = fc.oneof(
    fc.record({ from: fc.constantFrom(...ids), to: fc.constantFrom(...ids), arrow: fc.constantFrom('->>', '-->>', '-x') }).map(({ from, to, arrow }) => `  ${from}${arrow}${to}: hi`),
    fc.constantFrom(...ids).map((id) => `  Note right of ${id}: a note`),
    fc.tuple(fc.constantFrom('loop', 'alt', 'opt', 'par', 'critical', 'break', 'else', 'and', 'option'), fc.constantFrom(...labels)).map(([keyword, label]) => `  ${keyword} ${label}`),
    fc.constantFrom('  end', '  rect rgb(0, 0, 0)', '  autonumber'),
  );

  it('changes only the labels of blocks, each keeping its keyword and its characters but for line breaks and the hyphens of a cut part', () => {
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 16 }), (lines) => {
        const body = ['sequenceDiagram', ...lines].join('\n');
        const result = blockLabelsBroken(body, 100, 20).split('\n');
        const written = body.split('\n');
        assert.equal(result.length, written.length);
        result.forEach((text, index) => {
          if (text === written[index]) return;
          const [keyword, ...label] = written[index]!.trim().split(' ');
          assert.ok(['loop', 'alt', 'opt', 'par', 'critical', 'break', 'else', 'and', 'option'].includes(keyword!), written[index]);
          assert.ok(text.startsWith(`  ${keyword} `), text);
          const shown = text.slice(`  ${keyword} `.length);
          assert.equal(shown.replace(/<br\/>/g, '').replace(/[\s-]+/g, ''), label.join(' ').replace(/[\s-]+/g, ''), text);
        });
      }),
      { numRuns: 300 },
    );
  });
});
