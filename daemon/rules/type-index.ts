// Which rules read which type: a reading recorded re-evaluates only the rules that read its
// type, so ingest with many rules stays as fast as without.

/** Items (rules, alarms) by the types they read. */
export class TypeIndex<T> {
  private readonly byType = new Map<string, T[]>();

  /** Index `item` under each of `types`. */
  add(item: T, types: Iterable<string>): void {
    for (const type of types) {
      const list = this.byType.get(type);
      if (list) { if (!list.includes(item)) list.push(item); } else this.byType.set(type, [item]);
    }
  }

  /** The items that read `type` (empty when none). */
  itemsFor(type: string): readonly T[] {
    return this.byType.get(type) ?? [];
  }

  /** Whether any item reads `type`. */
  has(type: string): boolean {
    return this.byType.has(type);
  }
}
