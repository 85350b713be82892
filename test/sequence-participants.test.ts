// Participant names of a sequence diagram laid out narrower are broken between words and at the
// parts of a word (src/cards/diagrams/sequence-participants.ts), not hyphenated by Mermaid inside
// one; the order of the participants stays Mermaid's.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { participantNamesBroken } from '../src/cards/diagrams/sequence-participants.js';

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

  it('leaves a label whose words fit to Mermaid, and breaks a Chinese name between characters without a hyphen', () => {
    const body = 'sequenceDiagram\n  participant G as Payment Gateway Service\n  G->>外卖平台订单调度中心服务: 下单';
    const [, gateway, chinese] = participantNamesBroken(body, 100).split('\n');
    assert.equal(gateway, 'participant G as Payment Gateway Service', 'Mermaid wraps it between its words');
    assert.equal(chinese, 'participant 外卖平台订单调度中心服务 as 外卖平台订<br/>单调度中心<br/>服务');
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
