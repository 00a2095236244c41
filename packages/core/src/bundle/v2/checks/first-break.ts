// One message per kind of per-entry failure: the first, with the count of the others (O(n) text at most once).
// Shared by the V2 hash_chain and intent_hash checks; issue 13 item 3.
export class FirstBreak {
  private first: string | undefined;
  private count = 0;
  note(message: string): void {
    if (this.first === undefined) this.first = message;
    this.count++;
  }
  message(): string | undefined {
    if (this.first === undefined) return undefined;
    return this.count > 1 ? `${this.first} (and ${this.count - 1} more)` : this.first;
  }
}
