//! The navigator's side of a wave run waits for the main loop, which owns the journal: a
//! batch (a capture, a `wave N/M · starts` note) is done only once the loop answered that it
//! was written, and a loop that is gone or failed to write is an error, so the change it
//! guards does not run.

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use super::{Msg, Observer, Tui};
use crate::tui::runtime::waves_resume::starts_note;

fn observer() -> (Tui, std::sync::mpsc::Receiver<Msg>) {
    let (tx, rx) = std::sync::mpsc::channel();
    let (_choice, choices) = tokio::sync::mpsc::unbounded_channel();
    let obs = Tui {
        tx,
        pause: Default::default(),
        choices,
    };
    (obs, rx)
}

fn poll<F: Future>(f: std::pin::Pin<&mut F>) -> Poll<F::Output> {
    f.poll(&mut Context::from_waker(Waker::noop()))
}

#[test]
fn a_batch_is_done_only_once_the_main_loop_answered() {
    let (mut obs, rx) = observer();
    let note = starts_note("g.md#scale", 1, 2, &["mc-a".to_string()]);
    let mut written = pin!(obs.journal(&[], vec![note.clone()]));
    assert!(
        poll(written.as_mut()).is_pending(),
        "done before it was written"
    );
    let Ok(Msg::Journal(batch)) = rx.try_recv() else {
        panic!("the batch did not reach the main loop");
    };
    assert_eq!(batch.parts.len(), 1);
    assert_eq!(batch.parts[0].1, vec![note]);
    let _ = batch.answer.send(Err("No space left on device".into()));
    assert_eq!(
        poll(written.as_mut()),
        Poll::Ready(Err("No space left on device".to_string()))
    );
}

#[test]
fn a_main_loop_that_is_gone_is_an_error_never_a_success() {
    let (mut obs, rx) = observer();
    drop(rx);
    let note = starts_note("g.md#scale", 1, 1, &["mc-a".to_string()]);
    let written = pin!(obs.journal(&[], vec![note.clone()]));
    assert!(matches!(poll(written), Poll::Ready(Err(_))));
    // A loop that drops the batch unanswered (it quit meanwhile) is the same.
    let (mut obs, rx) = observer();
    let mut written = pin!(obs.journal(&[], vec![note]));
    assert!(poll(written.as_mut()).is_pending());
    drop(rx.try_recv());
    assert!(matches!(poll(written.as_mut()), Poll::Ready(Err(_))));
}
