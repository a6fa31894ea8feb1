import type { Page } from 'playwright-core';

export interface LabelBox {
  id: string;
  label: string;
  x1: number;
  x2: number;
  y1: number;
  y2: number;
}

/** Every node of the drawn graph with its box, its label included, and the label drawn (empty when hidden). */
export function labelBoxes(page: Page): Promise<LabelBox[]> {
  return page.evaluate<LabelBox[]>(
    `window.__cy.nodes().map((n) => {
      const b = n.boundingBox({ includeLabels: true });
      return { id: n.id(), label: n.style('label'), x1: b.x1, x2: b.x2, y1: b.y1, y2: b.y2 };
    })`,
  );
}

/** The pairs of nodes whose boxes (labels included) overlap, as "label × label". */
export function clashes(boxes: readonly LabelBox[]): string[] {
  const found: string[] = [];
  for (const [i, a] of boxes.entries()) {
    for (const b of boxes.slice(i + 1)) {
      if (a.x1 < b.x2 && b.x1 < a.x2 && a.y1 < b.y2 && b.y1 < a.y2) found.push(`${a.label} × ${b.label}`);
    }
  }
  return found;
}
