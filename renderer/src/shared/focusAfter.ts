// Moving the keyboard out of a widget that holds keys (the terminal) to where Tab would have gone from it.

const TABBABLE =
  'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), summary, [tabindex]:not([tabindex="-1"])';

/**
 * Focuses the first element a person could Tab to that comes after `widget` in the page (or the page's first one,
 * as Tab wraps), never one inside `widget`. Returns false where the page has none.
 */
export function focusAfter(widget: Element): boolean {
  const candidates = [...document.querySelectorAll<HTMLElement>(TABBABLE)].filter(
    (element) => !widget.contains(element) && element.tabIndex >= 0 && element.getClientRects().length > 0,
  );
  const next = candidates.find((element) => (widget.compareDocumentPosition(element) & Node.DOCUMENT_POSITION_FOLLOWING) !== 0) ?? candidates[0];
  if (!next) return false;
  next.focus();
  return true;
}
