// Previews are taken in turns per client (an address, or an IPv6 /64: client-key.ts). A client's
// preview waits until its previous one has finished, so one client never has more than one preview
// on the previews' render page and Markdown worker at a time, and every client has at most one
// request in the lane's queue: a client sending many previews at once waits behind itself, while
// other clients' previews go through the lane in the order they came. Behind its running preview a
// client may have a few waiting (an editor sends one per pause in typing); more are refused with 429
// at once. Per replica: with several, a client's turns are counted on each.
import { httpFailures } from './http-errors.js';

interface Client {
  /** Previews waiting behind the running one, first come first served. */
  waiting: Array<() => void>;
}

export class ClientTurns {
  /** Clients with a preview running; a client with none is not kept. */
  private readonly clients = new Map<string, Client>();

  constructor(
    /** Previews one client may have waiting behind its running one. */
    private readonly maxWaiting: number,
  ) {}

  /** Runs `work` once `client`'s earlier previews are done; refuses with 429 when too many wait, and gives up waiting when `signal` aborts. */
  async run<T>(client: string, signal: AbortSignal, work: () => Promise<T>): Promise<T> {
    const running = this.clients.get(client);
    if (running) {
      if (running.waiting.length >= this.maxWaiting) throw httpFailures.previewsInProgress(this.maxWaiting + 1);
      await new Promise<void>((resolve, reject) => {
        const turn = () => {
          signal.removeEventListener('abort', giveUp);
          resolve();
        };
        const giveUp = () => {
          running.waiting.splice(running.waiting.indexOf(turn), 1);
          reject(signal.reason);
        };
        running.waiting.push(turn);
        signal.addEventListener('abort', giveUp, { once: true });
      });
    } else {
      this.clients.set(client, { waiting: [] });
    }
    try {
      return await work();
    } finally {
      this.next(client);
    }
  }

  /** Gives the client's next waiting preview its turn, or forgets the client. */
  private next(client: string): void {
    const state = this.clients.get(client);
    const turn = state?.waiting.shift();
    if (turn) turn();
    else this.clients.delete(client);
  }
}
