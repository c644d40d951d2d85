// Daily budgets per tenant (VIDEO_DAILY_TASKS_BY_TENANT, VIDEO_DAILY_SECONDS_BY_TENANT): what each tenant
// (fairnessKey) may start per UTC day, in tasks and in seconds of video. A grant spends its request's
// cost; a refused create (429) is refunded, since nothing was made. A request whose tenant has too little
// left waits for the next day, or is denied at once when its job chose to fail (BudgetExceeded). Pure:
// the gate passes the times in.
import type { GateSnapshot, SlotRequest, TenantBudget } from '../../contract/admission.js';

const DAY_MS = 86_400_000;

/** The next UTC midnight after `now` (ms epoch). */
export const nextUtcDay = (now: number): number => (Math.floor(now / DAY_MS) + 1) * DAY_MS;

type Spent = Record<string, { tasks: number; seconds: number }>;
const copy = (spent: Spent): Spent =>
  Object.fromEntries(Object.entries(spent).map(([tenant, s]) => [tenant, { ...s }]));

export class DailyBudgets {
  #budgets: Record<string, TenantBudget>;
  #day: number;
  #spent: Spent;

  constructor(
    snapshot?: Pick<GateSnapshot, 'budgets' | 'budgetDay' | 'spent'>,
    budgets?: Record<string, TenantBudget>,
  ) {
    this.#budgets = { ...(snapshot?.budgets ?? budgets ?? {}) };
    this.#day = snapshot?.budgetDay ?? 0;
    this.#spent = copy(snapshot?.spent ?? {});
  }

  set(budgets: Record<string, TenantBudget> | undefined): void {
    this.#budgets = { ...(budgets ?? {}) };
  }

  /**
   * Whether the request's cost fits what its tenant has left today. A request that does not say its
   * seconds never fits a budget in seconds: its cost is unknown, not 0 (the activities refuse such a
   * create before asking; this holds for any other asker).
   */
  fits(r: Pick<SlotRequest, 'fairnessKey' | 'seconds'>, now: number): boolean {
    const budget = this.#budgets[r.fairnessKey];
    if (!budget) return true;
    const spent = this.#today(now)[r.fairnessKey] ?? { tasks: 0, seconds: 0 };
    if (budget.tasks !== undefined && spent.tasks + 1 > budget.tasks) return false;
    if (budget.seconds === undefined) return true;
    return r.seconds !== undefined && spent.seconds + r.seconds <= budget.seconds;
  }

  spend(r: Pick<SlotRequest, 'fairnessKey' | 'seconds'>, now: number, sign = 1): void {
    if (!this.#budgets[r.fairnessKey]) return;
    const today = this.#today(now);
    const spent = (today[r.fairnessKey] ??= { tasks: 0, seconds: 0 });
    spent.tasks = Math.max(0, spent.tasks + sign);
    spent.seconds = Math.max(0, spent.seconds + sign * (r.seconds ?? 0));
  }

  /** When today's budgets start over (ms epoch): the next UTC midnight. */
  nextDay(now: number): number {
    return nextUtcDay(now);
  }

  view(now: number): { budgets: Record<string, TenantBudget>; spentToday: Spent } {
    return { budgets: { ...this.#budgets }, spentToday: copy(this.#today(now)) };
  }

  snapshot(): Pick<GateSnapshot, 'budgets' | 'budgetDay' | 'spent'> {
    return Object.keys(this.#budgets).length === 0
      ? {}
      : { budgets: { ...this.#budgets }, budgetDay: this.#day, spent: copy(this.#spent) };
  }

  #today(now: number): Spent {
    const day = Math.floor(now / DAY_MS);
    if (day !== this.#day) {
      this.#day = day;
      this.#spent = {};
    }
    return this.#spent;
  }
}
