/**
 * TLC's out-degree statistics: for each state expanded, how many of its successors were new (TLC's
 * Worker counts them as `unseenSuccessorStates`), summarised as TLC's success report prints them.
 */
export interface OutDegreeSummary {
  /** The mean, rounded as TLC prints it. */
  mean: number;
  min: number;
  max: number;
  /** TLC's 95th percentile: the least degree whose cumulative count exceeds floor(0.95 · states). */
  p95: number;
}

export class OutDegree {
  /** counts[d]: the states with d new successors. */
  private counts: number[] = [];
  private states = 0;
  private sum = 0;

  add(degree: number): void {
    while (this.counts.length <= degree) this.counts.push(0);
    this.counts[degree]!++;
    this.states++;
    this.sum += degree;
  }

  /** None when no state was expanded: TLC then prints no outdegree line. */
  summary(): OutDegreeSummary | undefined {
    if (this.states === 0) return undefined;
    const present = [...this.counts.keys()].filter((d) => this.counts[d]! > 0);
    const pos = Math.floor(this.states * 0.95);
    let cumulative = 0;
    let p95 = present[present.length - 1]!;
    for (const d of present) {
      cumulative += this.counts[d]!;
      if (cumulative > pos) {
        p95 = d;
        break;
      }
    }
    return {
      mean: Math.round(this.sum / this.states),
      min: present[0]!,
      max: present[present.length - 1]!,
      p95,
    };
  }
}
