// The learner's JupyterLab: a cell run before the notebook's kernel is ready waits for it.
//
// JupyterLab 4.6's CodeCell.execute clears a cell's outputs and returns, running nothing and
// saying nothing, when the notebook's session has no kernel yet. A learner who opens a lesson
// and clicks Run All at once (one quick click in four, measured) loses the stored outputs and
// gets no run. This plugin replaces the notebook's cell executor (the token JupyterLab offers
// for exactly this) with one that first waits for the session to be ready and its kernel to
// exist, tells the learner it is waiting, and then runs the cell with JupyterLab's own runCell.
// Cells queued together resume in the order they were queued, so Run All keeps its order.
import { Notification } from '@jupyterlab/apputils';
import { INotebookCellExecutor, runCell } from '@jupyterlab/notebook';

/** Seconds a cell waits for a kernel before it is run anyway (JupyterLab then says why not). */
const KERNEL_WAIT_SECONDS = 120;

/** The kernel of *sessionContext*, once its session exists and has started one. */
async function kernelReady(sessionContext) {
  await sessionContext.ready;
  const deadline = Date.now() + KERNEL_WAIT_SECONDS * 1000;
  while (!sessionContext.session?.kernel && !sessionContext.hasNoKernel) {
    if (Date.now() > deadline || sessionContext.isDisposed) {
      return;
    }
    await new Promise(resolve => setTimeout(resolve, 100));
  }
}

const waiting = new WeakMap();

/** One wait per session, and one message for it however many cells are queued behind it. */
function waitFor(sessionContext) {
  let promise = waiting.get(sessionContext);
  if (!promise) {
    const id = Notification.info(
      'The kernel is still starting: the cells you ran will run as soon as it is ready.',
      { autoClose: false }
    );
    promise = kernelReady(sessionContext).finally(() => {
      waiting.delete(sessionContext);
      Notification.dismiss(id);
    });
    waiting.set(sessionContext, promise);
  }
  return promise;
}

const plugin = {
  id: '@windowmem/lab:cell-executor',
  description: 'Runs a cell only once the notebook has a kernel, instead of dropping it.',
  autoStart: true,
  provides: INotebookCellExecutor,
  activate: () =>
    Object.freeze({
      async runCell(options) {
        const context = options.sessionContext;
        // Before the session is ready, hasNoKernel is true too: only the wait can tell a
        // kernel still starting from a notebook the learner set to No Kernel.
        if (context && options.cell.model.type === 'code' && !context.session?.kernel) {
          await waitFor(context);
        }
        return runCell(options);
      }
    })
};

export default plugin;
