/**
 * Whether this process wants new traffic. A serving process stops wanting it on SIGTERM, before it stops
 * serving: `/readyz` then answers 503 so that a load balancer takes it out of rotation while requests it
 * still receives are answered (main.ts drains for HEARTH_SHUTDOWN_GRACE, then closes).
 */
export function createReadiness() {
  let draining = false;
  return {
    get draining(): boolean {
      return draining;
    },
    drain(): void {
      draining = true;
    },
  };
}

export type Readiness = ReturnType<typeof createReadiness>;
