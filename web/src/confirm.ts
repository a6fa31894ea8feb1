import { h } from './dom.ts';

/**
 * Asks before something that cannot be undone, in a modal `<dialog>` (focus is trapped and Escape
 * cancels). Resolves true only when the user presses the confirming button.
 */
export function confirmAction(title: string, message: string, confirmLabel: string): Promise<boolean> {
  return new Promise((resolve) => {
    const dialog = h(
      'dialog',
      { class: 'confirm', 'aria-labelledby': 'confirm-title' },
      h(
        'form',
        { method: 'dialog' },
        h('h2', { id: 'confirm-title' }, title),
        h('p', null, message),
        h(
          'div',
          { class: 'actions' },
          h('button', { type: 'submit', value: 'cancel', autofocus: true }, 'Cancel'),
          h('button', { type: 'submit', value: 'confirm', class: 'danger' }, confirmLabel),
        ),
      ),
    );
    dialog.addEventListener('close', () => {
      resolve(dialog.returnValue === 'confirm');
      dialog.remove();
    });
    document.body.append(dialog);
    dialog.showModal();
  });
}
