//! The delegate run machine (src/run/, issue 34): tables of whole runs, each pinning a
//! rule of ADR 0299 §2, §4–7 and ADR 0279 §1–6 as the machine decides it, and a property
//! test over any order of events (start and settle paired, one finish, one tally, the
//! parent never given a provider's overflow text, fallbacks only to models that fit).

use std::cell::Cell;
use std::rc::Rc;

use delegate_context::compaction::tally::RunTally;
use delegate_context::delegation::task_row::TaskArgs;
use delegate_context::delegation::{IdSource, Registry};
use delegate_context::facts::MessageFacts;
use delegate_context::message::AgentMessage;
use delegate_context::run::{
    Answer, BoundaryReport, DelegateRun, Event, RequestEnd, ResultStatus, RetryPolicy, RunError,
    RunEvent, RunModel, RunNext, RunResult, RunSetup, RunStep, RunTask, Thrown,
};
use delegate_context::stop_reason::StopReason;
use delegate_context::transcript::UiMessage;
use delegate_context::Error;
use proptest::prelude::*;
use serde_json::{json, Value};

fn ids() -> IdSource {
    let n = Rc::new(Cell::new(0u64));
    Box::new(move || {
        n.set(n.get() + 1);
        Ok(format!("d{}", n.get()))
    })
}

fn model(id: &str, window: f64, max: f64) -> RunModel {
    RunModel {
        id: id.into(),
        provider: Some("local".into()),
        api: Some("faux".into()),
        context_window: Some(window),
        max_tokens: Some(max),
        definition_max_tokens: None,
    }
}

/// small-8k (hardLimit 4,096), tiny-4k (2,048), medium-32k (16,000).
fn models() -> Vec<RunModel> {
    vec![
        model("small-8k", 8192.0, 1024.0),
        model("tiny-4k", 4096.0, 1024.0),
        model("medium-32k", 32000.0, 8000.0),
    ]
}

fn setup(task: TaskArgs, models: Vec<RunModel>) -> RunSetup {
    RunSetup {
        task: RunTask {
            tool_call_id: "task_1".into(),
            args: task,
        },
        models,
        retry: Some(RetryPolicy {
            max_retries: 2,
            base_delay_ms: 1000.0,
            max_delay_ms: 30_000.0,
        }),
        ..RunSetup::default()
    }
}

fn task(text: &str) -> TaskArgs {
    TaskArgs {
        agent: "Explorer".into(),
        task: text.into(),
        description: Some("read files".into()),
        ..TaskArgs::default()
    }
}

fn facts(v: Value) -> MessageFacts {
    let m: AgentMessage = delegate_context::decode::decode_at(v, "m").unwrap();
    m.facts("m").unwrap()
}

fn read_call(id: &str, path: &str) -> Value {
    json!({ "role": "assistant", "content": [
        { "type": "text", "text": format!("Reading {path}.") },
        { "type": "toolCall", "id": id, "name": "read", "arguments": { "path": path } }
    ], "api": "faux", "provider": "local", "model": "small-8k", "stopReason": "toolUse", "timestamp": 1,
       "usage": { "input": 100, "output": 10, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 110 } })
}

fn read_result(id: &str, path: &str) -> Value {
    json!({ "role": "toolResult", "toolCallId": id, "toolName": "read",
        "content": [{ "type": "text", "text": format!("// {path}\nline\nline") }], "isError": false, "timestamp": 2 })
}

fn answer(text: &str) -> Answer {
    Answer {
        text: text.into(),
        stop_reason: Some(StopReason::Stop),
        ..Answer::default()
    }
}

fn failed(message: &str) -> Answer {
    Answer {
        stop_reason: Some(StopReason::Error),
        error_message: Some(message.into()),
        ..Answer::default()
    }
}

fn ended(a: Answer) -> Event {
    Event::RequestEnded(RequestEnd {
        answer: Some(a),
        thrown: None,
    })
}

fn boundary(tokens_after: u64, run: RunTally) -> Event {
    Event::Boundary(BoundaryReport {
        run: run.clone(),
        tokens_after,
        report: json!({ "outcome": "unchanged", "tokensAfter": tokens_after }),
    })
}

/// A run with its registry and every step it answered.
struct Driven {
    reg: Registry,
    run: DelegateRun,
    steps: Vec<RunStep>,
    now: f64,
}

impl Driven {
    fn start(setup: &RunSetup, rows: Option<&[UiMessage]>) -> Driven {
        let mut reg = Registry::with_id_source(ids());
        let (run, step) = DelegateRun::start(&mut reg, setup, rows, 1_000.0).unwrap();
        Driven {
            reg,
            run,
            steps: vec![step],
            now: 1_000.0,
        }
    }

    fn on(&mut self, event: Event) -> &RunStep {
        self.now += 10.0;
        let step = self.run.on(&mut self.reg, event, self.now);
        self.steps.push(step);
        self.steps.last().unwrap()
    }

    fn events(&self) -> Vec<&RunEvent> {
        self.steps.iter().flat_map(|s| s.events.iter()).collect()
    }

    fn result(&self) -> RunResult {
        self.run.result().expect("finished")
    }

    fn requested_models(&self) -> Vec<String> {
        self.steps
            .iter()
            .filter_map(|s| match &s.next {
                RunNext::Request { model_id, .. } => Some(model_id.clone()),
                _ => None,
            })
            .collect()
    }

    /// A turn of the agent: a pre-flight boundary, a read, its result.
    fn read_turn(&mut self, n: usize, tokens: u64) {
        let tally = self.run.tally().clone();
        self.on(boundary(tokens, tally));
        let (id, path) = (format!("c{n}"), format!("src/f{n}.ts"));
        self.on(Event::Message(facts(read_call(&id, &path))));
        self.on(Event::Message(facts(read_result(&id, &path))));
    }
}

fn status_in_registry(d: &Driven) -> String {
    let id = d.result().delegation_id.unwrap();
    d.reg
        .resolve(&id)
        .unwrap()
        .status
        .as_text()
        .unwrap_or("")
        .to_string()
}

#[test]
fn a_run_that_completes_settles_once_with_its_rows_in_order() {
    let mut d = Driven::start(&setup(task("Read the files, then report."), models()), None);
    let first = &d.steps[0];
    // the Task row (running), then the brief's row; the first request on the delegate's model
    assert_eq!(first.rows.len(), 2);
    assert_eq!(first.rows[0].id, "task_1");
    assert_eq!(first.rows[1].id, "task_1:u0");
    assert!(
        matches!(&first.events[0], RunEvent::Started { model_id, .. } if model_id == "local/small-8k")
    );
    match &first.next {
        RunNext::Request {
            model_id,
            messages: Some(m),
            attempt: 0,
            budget,
            ..
        } => {
            assert_eq!(model_id, "local/small-8k");
            assert_eq!(budget.hard_limit, 4096);
            assert_eq!(m.len(), 1, "the brief alone");
        }
        other => panic!("{other:?}"),
    }
    d.read_turn(1, 500);
    d.read_turn(2, 900);
    d.on(boundary(
        1200,
        RunTally {
            boundaries: 3,
            ..RunTally::default()
        },
    ));
    let step = d.on(ended(answer("All read."))).clone();
    assert_eq!(step.next, RunNext::Finish { await_writes: true });
    let r = d.result();
    assert_eq!(
        (r.status, r.content.as_str(), r.is_error, r.code.as_deref()),
        (ResultStatus::Completed, "All read.", false, None)
    );
    assert_eq!(r.model_id.as_deref(), Some("local/small-8k"));
    assert_eq!(r.details.status.as_deref(), Some("completed"));
    assert_eq!(r.details.turns, Some(2));
    assert_eq!(r.details.tool_calls, Some(2));
    assert_eq!(r.details.final_model.as_deref(), Some("local/small-8k"));
    assert_eq!(r.run.boundaries, 3);
    assert_eq!(status_in_registry(&d), "completed");
    // every row carries an order key; keys follow the writing; the settled Task row keeps its own
    let rows = &r.rows;
    assert_eq!(rows.last().unwrap().id, "task_1");
    let keys: Vec<f64> = rows.iter().map(|r| r.order.unwrap()).collect();
    assert_eq!(keys[keys.len() - 1], d.steps[0].rows[0].order.unwrap());
    let own = &keys[..keys.len() - 1];
    assert!(own.windows(2).all(|w| w[0] < w[1]), "{own:?}");
    assert!(keys[keys.len() - 1] < own[0]);
    // nothing after the end
    let late = d.on(Event::Message(facts(read_call("c9", "x")))).clone();
    assert_eq!((late.rows.len(), &late.next), (0, &RunNext::Continue));
    assert_eq!(d.on(Event::Abort).next, RunNext::Continue);
    assert_eq!(
        d.on(Event::Crash(Thrown::default())).next,
        RunNext::Continue
    );
    assert_eq!(d.result().status, ResultStatus::Completed);
}

#[test]
fn task_model_resolves_among_the_configured_models_or_is_refused() {
    let mut t = task("Review.");
    t.model = Some("local/medium-32k".into());
    let d = Driven::start(&setup(t, models()), None);
    assert_eq!(d.requested_models(), ["local/medium-32k"]);
    let mut t = task("Review.");
    t.model = Some("tiny-4k".into());
    assert_eq!(
        Driven::start(&setup(t, models()), None).requested_models(),
        ["local/tiny-4k"]
    );

    let mut t = task("Review.");
    t.model = Some("no-such-model".into());
    let d = Driven::start(&setup(t, models()), None);
    let r = d.result();
    assert_eq!(
        (r.status, r.code.as_deref()),
        (ResultStatus::Refused, Some("UNKNOWN_MODEL"))
    );
    assert!(
        r.content.contains("\"no-such-model\"")
            && r.content
                .contains("local/small-8k, local/tiny-4k, local/medium-32k"),
        "{}",
        r.content
    );
    assert_eq!(d.reg.chain_count(), 0, "no run started");
    assert_eq!(d.steps[0].rows.len(), 1);
    assert_eq!(d.steps[0].rows[0].tool_status.as_deref(), Some("error"));
    assert!(d.steps[0].rows[0].order.is_some());
    assert_eq!(d.steps[0].next, RunNext::Finish { await_writes: true });

    // no delegate model: the session's
    let mut s = setup(task("Review."), vec![]);
    s.session_model = Some(model("session-64k", 64000.0, 16000.0));
    assert_eq!(
        Driven::start(&s, None).requested_models(),
        ["local/session-64k"]
    );
    // nothing at all: a programming error, thrown, nothing started
    let mut reg = Registry::with_id_source(ids());
    let e = DelegateRun::start(&mut reg, &setup(task("x"), vec![]), None, 0.0).unwrap_err();
    assert_eq!(e.code(), "INVALID_INPUT");
    assert_eq!(reg.chain_count(), 0);
}

#[test]
fn a_resume_needs_rows_and_a_refused_one_is_a_result() {
    let mut t = task("Continue.");
    t.resume = Some("no-such-id".into());
    let mut reg = Registry::with_id_source(ids());
    let e = DelegateRun::start(&mut reg, &setup(t.clone(), models()), None, 0.0).unwrap_err();
    assert_eq!(e.code(), "INVALID_INPUT");
    assert!(e.to_string().contains("options.rows"), "{e}");
    let d = Driven::start(&setup(t, models()), Some(&[]));
    let r = d.result();
    assert_eq!(
        (r.status, r.code.as_deref()),
        (ResultStatus::Refused, Some("UNKNOWN_DELEGATION"))
    );
    assert_eq!(r.details.error.as_deref(), Some("UNKNOWN_DELEGATION"));
}

#[test]
fn a_resume_is_seeded_from_its_rows_on_the_chains_model() {
    let mut first = Driven::start(&setup(task("Survey the modules."), models()), None);
    first.read_turn(1, 500);
    first.on(ended(answer("Money flows billing → tax.")));
    let r1 = first.result();
    let mut rows = r1.rows.clone();
    // the store returned them in another order
    rows.reverse();
    let mut t = task("Can legacyRound go?");
    t.resume = Some(r1.delegation_id.clone().unwrap());
    let mut s = setup(t, models());
    s.task.tool_call_id = "task_2".into();
    // the same registry continues
    let (run, step) = DelegateRun::start(&mut first.reg, &s, Some(&rows), 5_000.0).unwrap();
    let seed = step
        .events
        .iter()
        .find_map(|e| match e {
            RunEvent::Seed { seed } => Some(seed.clone()),
            _ => None,
        })
        .expect("a seed event");
    assert!(!seed.truncated);
    match &step.next {
        RunNext::Request {
            messages: Some(m), ..
        } => {
            assert_eq!(
                m.len(),
                seed.messages.len() + 1,
                "the seed, then this run's brief"
            );
            let texts: Vec<String> = m
                .iter()
                .map(|m| serde_json::to_string(m).unwrap())
                .collect();
            assert!(texts[0].contains("Survey the modules."));
            assert!(
                texts.iter().any(|t| t.contains("src/f1.ts")),
                "the earlier read is in the seed"
            );
            assert!(texts.last().unwrap().contains("Can legacyRound go?"));
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        &step.events[0],
        RunEvent::Started {
            resumed_from: Some(_),
            ..
        }
    ));
    drop(run);
}

#[test]
fn a_silent_overflow_is_a_failed_request_that_falls_back_never_a_success() {
    // a "stop" whose input passes small-8k's window: the run moves to a model that fits;
    // tiny-4k cannot hold the carried context and is skipped
    let mut d = Driven::start(&setup(task("Read."), models()), None);
    d.read_turn(1, 3000);
    let silent = Answer {
        text: "Looks done.".into(),
        stop_reason: Some(StopReason::Stop),
        usage: Some(serde_json::from_value(json!({ "input": 9000, "output": 12, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 9012 })).unwrap()),
        ..Answer::default()
    };
    let step = d.on(ended(silent)).clone();
    match &step.next {
        RunNext::Request {
            model_id,
            messages: None,
            attempt: 0,
            ..
        } => assert_eq!(model_id, "local/medium-32k"),
        other => panic!("{other:?}"),
    }
    assert!(step.events.iter().any(|e| matches!(
        e,
        RunEvent::ProviderError {
            context_too_large: true,
            ..
        }
    )));
    assert!(step.events.iter().any(|e| matches!(e, RunEvent::Fallback { to: Some(to), tokens: 3000, .. } if to == "local/medium-32k")));
    let tally = d.run.tally().clone();
    d.on(boundary(3100, tally));
    d.on(ended(answer("Tests cover positive amounts only.")));
    let r = d.result();
    assert_eq!(
        (r.status, r.content.as_str()),
        (
            ResultStatus::Completed,
            "Tests cover positive amounts only."
        )
    );
    assert_eq!(r.model_id.as_deref(), Some("local/medium-32k"));
    assert_eq!(r.details.final_model.as_deref(), Some("local/medium-32k"));
    assert_eq!(
        r.details.model_id.as_deref(),
        Some("small-8k"),
        "the binding stays the run's own"
    );
    let failures: Vec<(&str, &str)> = r
        .details
        .model_failures
        .as_ref()
        .unwrap()
        .iter()
        .map(|f| (f.model.as_str(), f.code.as_str()))
        .collect();
    assert_eq!(
        failures,
        [
            ("local/small-8k", "CONTEXT_TOO_LARGE"),
            ("local/tiny-4k", "SUBAGENT_CONTEXT_OVERFLOW")
        ]
    );

    // a "length" with no output at the window, and nothing to fall back to: the overflow code, no empty report
    let mut d = Driven::start(
        &setup(task("Read."), vec![model("small-8k", 8192.0, 1024.0)]),
        None,
    );
    d.read_turn(1, 3000);
    let length = Answer {
        stop_reason: Some(StopReason::Length),
        usage: Some(serde_json::from_value(json!({ "input": 8192, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 8192 })).unwrap()),
        ..Answer::default()
    };
    d.on(ended(length));
    let r = d.result();
    assert_eq!(
        (r.status, r.code.as_deref()),
        (ResultStatus::Failed, Some("SUBAGENT_CONTEXT_OVERFLOW"))
    );
    assert!(
        r.content
            .contains("does not fit in the context window of model \"local/small-8k\""),
        "{}",
        r.content
    );
    assert_eq!(status_in_registry(&d), "failed");
}

#[test]
fn a_provider_overflow_never_reaches_the_parent_in_the_providers_words() {
    let words = "prompt is too long: 8871 tokens > 8192 maximum";
    let mut d = Driven::start(
        &setup(
            task("Read."),
            vec![
                model("small-8k", 8192.0, 1024.0),
                model("tiny-4k", 4096.0, 1024.0),
            ],
        ),
        None,
    );
    d.read_turn(1, 1000);
    d.on(ended(failed(words)));
    let r = d.result();
    assert_eq!(r.code.as_deref(), Some("SUBAGENT_CONTEXT_OVERFLOW"));
    let everything = format!(
        "{}{}",
        r.content,
        serde_json::to_string(&r.details).unwrap()
    );
    assert!(!everything.contains("prompt is too long"), "{everything}");
    // the stated size (8,871) is larger than our estimate (1,000): tiny-4k was skipped for it
    let f = r.details.model_failures.unwrap();
    assert_eq!(f[0].code, "CONTEXT_TOO_LARGE");
    assert!(
        f[0].message.contains("about 8871 tokens"),
        "{}",
        f[0].message
    );
    assert_eq!(f[1].model, "local/tiny-4k");
    assert!(
        f[1].message.contains("about 8871 tokens"),
        "{}",
        f[1].message
    );
}

#[test]
fn a_retriable_failure_is_retried_with_a_budget_then_falls_back() {
    let mut d = Driven::start(
        &setup(
            task("Read."),
            vec![
                model("small-8k", 8192.0, 1024.0),
                model("medium-32k", 32000.0, 8000.0),
            ],
        ),
        None,
    );
    d.read_turn(1, 1000);
    assert_eq!(
        d.on(ended(failed("429 rate limit exceeded"))).next,
        RunNext::Wait { ms: 1000.0 }
    );
    assert!(d
        .events()
        .iter()
        .any(|e| matches!(e, RunEvent::Retry { attempt: 1, delay_ms, .. } if *delay_ms == 1000.0)));
    // nothing happens until the wait is over; then the same model, on the carried context
    assert_eq!(d.on(ended(failed("late"))).next, RunNext::Continue);
    assert!(
        matches!(d.on(Event::Waited).next, RunNext::Request { ref model_id, messages: None, attempt: 1, .. } if model_id == "local/small-8k")
    );
    // the provider's wait wins over the backoff
    assert_eq!(
        d.on(ended(failed(
            "Rate limit reached. Please try again in 1.5s."
        )))
        .next,
        RunNext::Wait { ms: 1500.0 }
    );
    d.on(Event::Waited);
    // the budget is spent: the next model
    let step = d.on(ended(failed("429 rate limit exceeded"))).clone();
    assert!(
        matches!(&step.next, RunNext::Request { model_id, attempt: 0, .. } if model_id == "local/medium-32k")
    );
    d.on(ended(answer("done")));
    let r = d.result();
    assert_eq!(r.status, ResultStatus::Completed);
    assert_eq!(
        r.details.model_failures.unwrap()[0].message,
        "429 rate limit exceeded"
    );

    // a wait longer than the policy allows is not waited for
    let mut d = Driven::start(
        &setup(task("Read."), vec![model("small-8k", 8192.0, 1024.0)]),
        None,
    );
    d.on(boundary(100, RunTally::default()));
    d.on(ended(failed("429: retry after 60 seconds")));
    let r = d.result();
    assert_eq!(
        (r.status, r.code.as_deref(), r.content.as_str()),
        (
            ResultStatus::Failed,
            Some("PROVIDER_ERROR"),
            "429: retry after 60 seconds"
        )
    );
    // a failure that is not retriable (auth) moves on at once
    let mut d = Driven::start(&setup(task("Read."), models()), None);
    d.on(boundary(100, RunTally::default()));
    assert!(
        matches!(d.on(ended(failed("401 invalid api key"))).next, RunNext::Request { ref model_id, .. } if model_id == "local/tiny-4k")
    );
}

#[test]
fn an_abort_or_a_failed_write_stops_the_agent_then_settles() {
    // an abort while the agent runs: Stop, then the end (whatever the loop answered)
    let mut d = Driven::start(&setup(task("Read."), models()), None);
    d.read_turn(1, 500);
    assert_eq!(d.on(Event::Abort).next, RunNext::Stop);
    assert_eq!(d.on(Event::Abort).next, RunNext::Continue);
    assert_eq!(
        d.on(ended(answer("half"))).next,
        RunNext::Finish {
            await_writes: false
        }
    );
    let r = d.result();
    assert_eq!(
        (r.status, r.code.as_deref(), r.is_error),
        (ResultStatus::Aborted, Some("ABORTED"), true)
    );
    assert_eq!(status_in_registry(&d), "aborted");
    // an abort during a retry's wait ends at once
    let mut d = Driven::start(&setup(task("Read."), models()), None);
    d.on(boundary(100, RunTally::default()));
    d.on(ended(failed("503 overloaded")));
    assert_eq!(
        d.on(Event::Abort).next,
        RunNext::Finish {
            await_writes: false
        }
    );
    assert_eq!(d.result().status, ResultStatus::Aborted);
    // a failed write: the run stops and fails with WRITE_FAILED; the chain is not left running
    let mut d = Driven::start(&setup(task("Read."), models()), None);
    d.on(Event::Written);
    d.read_turn(1, 500);
    let step = d
        .on(Event::WriteFailed("ENOSPC: no space left on device".into()))
        .clone();
    assert_eq!(step.next, RunNext::Stop);
    assert!(
        matches!(&step.events[0], RunEvent::WriteFailed { message } if message.starts_with("ENOSPC"))
    );
    assert_eq!(
        d.on(ended(answer("x"))).next,
        RunNext::Finish {
            await_writes: false
        }
    );
    let r = d.result();
    assert_eq!(
        (r.status, r.code.as_deref()),
        (ResultStatus::Failed, Some("WRITE_FAILED"))
    );
    assert!(r.content.contains("ENOSPC"), "{}", r.content);
    assert_eq!(
        r.write_error.as_deref(),
        Some("ENOSPC: no space left on device")
    );
    assert_eq!(status_in_registry(&d), "failed");
    // batches: 1 at the start (written), 2 for the turn, the failed one, the settled Task row
    assert_eq!(r.unsaved_batches, 3);
    d.on(Event::Written);
    assert_eq!(d.result().unsaved_batches, 2);
}

#[test]
fn a_crash_or_a_coded_error_ends_the_run_where_it_is() {
    let mut d = Driven::start(&setup(task("Read."), models()), None);
    d.read_turn(1, 500);
    assert_eq!(
        d.on(Event::Crash(Thrown {
            code: None,
            message: "tool exploded".into(),
            ..Thrown::default()
        }))
        .next,
        RunNext::Finish { await_writes: true }
    );
    let r = d.result();
    assert_eq!(
        (r.status, r.code.as_deref(), r.content.as_str()),
        (ResultStatus::Failed, Some("INTERNAL"), "tool exploded")
    );
    assert_eq!(status_in_registry(&d), "failed");
    // the boundary's own overflow ends the run: no fallback (clause 5's guidance is the parent's to act on)
    let mut d = Driven::start(&setup(task("Read."), models()), None);
    let thrown = Thrown {
        code: Some("SUBAGENT_CONTEXT_OVERFLOW".into()),
        message: "does not fit".into(),
        ..Thrown::default()
    };
    d.on(Event::RequestEnded(RequestEnd {
        answer: None,
        thrown: Some(thrown),
    }));
    let r = d.result();
    assert_eq!(
        (r.code.as_deref(), r.content.as_str()),
        (Some("SUBAGENT_CONTEXT_OVERFLOW"), "does not fit")
    );
    assert_eq!(d.requested_models().len(), 1);
}

#[test]
fn one_tally_across_models_so_a_degraded_run_says_so() {
    let mut d = Driven::start(
        &setup(
            task("Read."),
            vec![
                model("small-8k", 8192.0, 1024.0),
                model("medium-32k", 32000.0, 8000.0),
            ],
        ),
        None,
    );
    let degraded = RunTally {
        boundaries: 4,
        context_compactions: 1,
        context_degraded: true,
        dropped_messages: 6,
        dropped_tokens: 900,
    };
    d.on(boundary(3000, degraded.clone()));
    let step = d
        .on(ended(failed(
            "503 Service Unavailable: small-8k is overloaded",
        )))
        .clone();
    assert!(matches!(step.next, RunNext::Wait { .. }));
    d.on(Event::Waited);
    d.on(ended(failed("503 Service Unavailable")));
    d.on(Event::Waited);
    match d.on(ended(failed("503 Service Unavailable"))).next.clone() {
        RunNext::Request { model_id, run, .. } => {
            assert_eq!(model_id, "local/medium-32k");
            assert_eq!(
                run, degraded,
                "the hook on the fallback continues the run's counts"
            );
        }
        other => panic!("{other:?}"),
    }
    d.on(boundary(
        3000,
        RunTally {
            boundaries: 5,
            ..degraded.clone()
        },
    ));
    d.on(ended(answer("Partial findings.")));
    let r = d.result();
    assert!(
        r.content.starts_with("[Delegate context degraded]"),
        "{}",
        r.content
    );
    assert!(r.content.ends_with("Partial findings."));
    assert_eq!(r.details.context_degraded, Some(true));
    assert_eq!(r.run.boundaries, 5);
}

#[test]
fn duplicate_models_are_tried_once() {
    let m = vec![
        model("small-8k", 8192.0, 1024.0),
        model("small-8k", 8192.0, 1024.0),
        model("medium-32k", 32000.0, 8000.0),
    ];
    let mut d = Driven::start(&setup(task("Read."), m), None);
    d.on(boundary(100, RunTally::default()));
    d.on(ended(failed("401 unauthorized")));
    assert_eq!(d.requested_models(), ["local/small-8k", "local/medium-32k"]);
}

// ---------------------------------------------------------------- any order of events

#[derive(Clone, Debug)]
enum Ev {
    Read(u8),
    Boundary(u16, bool),
    Ok,
    Fail(u8),
    Silent,
    Waited,
    Written,
    WriteFailed,
    Abort,
    Crash,
    HookOverflow,
}

fn ev() -> impl Strategy<Value = Ev> {
    prop_oneof![
        3 => (0u8..20).prop_map(Ev::Read),
        3 => (0u16..20_000, any::<bool>()).prop_map(|(t, d)| Ev::Boundary(t, d)),
        1 => Just(Ev::Ok),
        3 => (0u8..4).prop_map(Ev::Fail),
        1 => Just(Ev::Silent),
        2 => Just(Ev::Waited),
        2 => Just(Ev::Written),
        1 => Just(Ev::WriteFailed),
        1 => Just(Ev::Abort),
        1 => Just(Ev::Crash),
        1 => Just(Ev::HookOverflow),
    ]
}

const OVERFLOW_WORDS: &str = "prompt is too long: 123456 tokens > 8192 maximum";

fn event(e: &Ev, tally: &RunTally) -> Event {
    match e {
        Ev::Read(n) => Event::Message(facts(if n % 2 == 0 { read_call(&format!("c{n}"), "a.ts") } else { read_result(&format!("c{}", n - 1), "a.ts") })),
        Ev::Boundary(t, degraded) => {
            let mut run = tally.clone();
            run.boundaries += 1;
            run.context_degraded |= *degraded;
            boundary(u64::from(*t), run)
        }
        Ev::Ok => ended(answer("report")),
        Ev::Fail(k) => ended(failed(["429 rate limit exceeded", OVERFLOW_WORDS, "401 unauthorized", "503 overloaded, try again in 2s"][usize::from(*k)])),
        Ev::Silent => ended(Answer {
            stop_reason: Some(StopReason::Stop),
            text: OVERFLOW_WORDS.into(),
            usage: Some(serde_json::from_value(json!({ "input": 500_000, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 500_001 })).unwrap()),
            ..Answer::default()
        }),
        Ev::Waited => Event::Waited,
        Ev::Written => Event::Written,
        Ev::WriteFailed => Event::WriteFailed("disk full".into()),
        Ev::Abort => Event::Abort,
        Ev::Crash => Event::Crash(Thrown { code: None, message: "driver threw".into(), ..Thrown::default() }),
        Ev::HookOverflow => Event::RequestEnded(RequestEnd {
            answer: None,
            thrown: Some(Thrown { code: Some("SUBAGENT_CONTEXT_OVERFLOW".into()), message: "does not fit".into(), ..Thrown::default() }),
        }),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn any_order_of_events_ends_once_settled_with_one_tally(
        windows in proptest::collection::vec(prop_oneof![Just(4096.0), Just(8192.0), Just(32000.0), Just(200_000.0)], 1..4),
        events in proptest::collection::vec(ev(), 0..40),
    ) {
        let models: Vec<RunModel> = windows.iter().enumerate().map(|(i, w)| model(&format!("m{i}"), *w, 1024.0)).collect();
        let mut d = Driven::start(&setup(task("Read the files."), models.clone()), None);
        let mut finishes = usize::from(matches!(d.steps[0].next, RunNext::Finish { .. }));
        let mut last_tally = RunTally::default();
        let mut carried = 0u64;
        for e in &events {
            let tally = d.run.tally().clone();
            let was_finished = d.run.is_finished();
            let event = event(e, &tally);
            if let Event::Boundary(b) = &event {
                if !was_finished { last_tally = b.run.clone(); carried = b.tokens_after; }
            }
            let step = d.on(event).clone();
            if was_finished {
                // nothing more is written or asked once the run has ended
                prop_assert!(step.rows.is_empty(), "{:?}", step);
                prop_assert_eq!(&step.next, &RunNext::Continue);
            }
            if matches!(step.next, RunNext::Finish { .. }) { finishes += 1; }
            if let RunNext::Request { model, run, .. } = &step.next {
                // a fallback only to a model whose budget holds what was carried
                prop_assert!(models.iter().any(|m| m.key() == model.key()));
                if step.events.iter().any(|e| matches!(e, RunEvent::Fallback { .. })) {
                    prop_assert!(carried < model.budget().hard_limit);
                }
                prop_assert_eq!(run, &last_tally);
            }
            for row in &step.rows {
                prop_assert!(row.order.is_some());
            }
            if matches!(e, Ev::Crash) { prop_assert!(d.run.is_finished()); }
        }
        // the adapter's last word: whatever was left running ends now
        if !d.run.is_finished() {
            let step = d.on(Event::Crash(Thrown { code: None, message: "the adapter ended".into(), ..Thrown::default() })).clone();
            let finished = matches!(step.next, RunNext::Finish { .. });
            prop_assert!(finished);
            finishes += 1;
        }
        prop_assert_eq!(finishes, 1, "one finish");
        let r = d.result();
        // settled in the registry, and the Task row says so
        let status = status_in_registry(&d);
        prop_assert!(["completed", "failed", "aborted"].contains(&status.as_str()), "{}", status);
        prop_assert_eq!(r.details.status.as_deref(), Some(status.as_str()));
        prop_assert_eq!(r.rows.last().map(|r| r.id.as_str()), Some("task_1"));
        // one tally: the last boundary's
        prop_assert_eq!(&r.run, &last_tally);
        prop_assert_eq!(r.details.context_degraded, Some(last_tally.context_degraded));
        if r.status == ResultStatus::Completed && last_tally.context_degraded {
            prop_assert!(r.content.starts_with("[Delegate context degraded]"));
        }
        // the parent never sees a provider's overflow words
        prop_assert!(!r.content.contains("prompt is too long"), "{}", r.content);
        prop_assert!(!serde_json::to_string(&r.details).unwrap().contains("prompt is too long"));
        prop_assert_eq!(r.is_error, r.status != ResultStatus::Completed);
    }
}

// ---------------------------------------------------------------- rules the runs above leave open
//
// Each table below states a rule that a mutant of src/run/ broke without failing a test
// above (scripts/mutants.sh, 2026-12-05).

/// The step that answers `failure`, the first request of a run on `models` whose boundary
/// carried `tokens`.
fn after_failure(models: Vec<RunModel>, tokens: u64, failure: &str) -> RunStep {
    let mut d = Driven::start(&setup(task("Read."), models), None);
    d.on(boundary(tokens, RunTally::default()));
    d.on(ended(failed(failure))).clone()
}

#[test]
fn the_retry_policy_defaults_and_its_waits() {
    let default = RetryPolicy {
        max_retries: 2,
        base_delay_ms: 1000.0,
        max_delay_ms: 30_000.0,
    };
    assert_eq!(RetryPolicy::default(), default);
    let decoded: RetryPolicy = delegate_context::decode::decode_at(json!({}), "retry").unwrap();
    assert_eq!(decoded, default);
    // (policy, retry number, the provider's wait) → the wait, or None: no retry
    let capped = RetryPolicy {
        base_delay_ms: 20_000.0,
        ..default.clone()
    };
    let cases: [(&RetryPolicy, u32, Option<f64>, Option<f64>); 9] = [
        (&default, 0, None, Some(1000.0)),
        (&default, 1, None, Some(2000.0)),
        (&default, 2, None, None),
        (&default, 0, Some(1500.0), Some(1500.0)),
        (&default, 1, Some(0.0), Some(0.0)),
        // exactly the longest wait is waited for; longer is not
        (&default, 0, Some(30_000.0), Some(30_000.0)),
        (&default, 0, Some(30_000.5), None),
        // the backoff is capped at the longest wait
        (&capped, 1, None, Some(30_000.0)),
        (&capped, 0, None, Some(20_000.0)),
    ];
    for (policy, retry, asked, want) in cases {
        assert_eq!(
            policy.delay(retry, asked),
            want,
            "{policy:?} retry {retry} asked {asked:?}"
        );
    }
    // a run given no policy retries by the defaults: 1 s, 2 s, then the next model
    let mut s = setup(
        task("Read."),
        vec![
            model("small-8k", 8192.0, 1024.0),
            model("medium-32k", 32000.0, 8000.0),
        ],
    );
    s.retry = None;
    let mut d = Driven::start(&s, None);
    d.on(boundary(100, RunTally::default()));
    assert_eq!(
        d.on(ended(failed("503 overloaded"))).next,
        RunNext::Wait { ms: 1000.0 }
    );
    d.on(Event::Waited);
    assert_eq!(
        d.on(ended(failed("503 overloaded"))).next,
        RunNext::Wait { ms: 2000.0 }
    );
    d.on(Event::Waited);
    assert!(matches!(
        d.on(ended(failed("503 overloaded"))).next,
        RunNext::Request { ref model_id, .. } if model_id == "local/medium-32k"
    ));
}

#[test]
fn bad_retry_and_overhead_numbers_are_refused_before_a_run_starts() {
    let retry = |base: f64, max: f64| RetryPolicy {
        max_retries: 2,
        base_delay_ms: base,
        max_delay_ms: max,
    };
    // (retry, overheadTokens) → the path refused, or None: the run starts
    let cases: [(RetryPolicy, f64, Option<&str>); 10] = [
        (retry(0.0, 0.0), 0.0, None),
        (retry(1000.0, 30_000.0), 250.5, None),
        (
            retry(f64::NAN, 30_000.0),
            0.0,
            Some("options.retry.baseDelayMs"),
        ),
        (
            retry(-1.0, 30_000.0),
            0.0,
            Some("options.retry.baseDelayMs"),
        ),
        (
            retry(f64::INFINITY, 30_000.0),
            0.0,
            Some("options.retry.baseDelayMs"),
        ),
        (
            retry(1000.0, f64::NAN),
            0.0,
            Some("options.retry.maxDelayMs"),
        ),
        (retry(1000.0, -0.5), 0.0, Some("options.retry.maxDelayMs")),
        (
            retry(1000.0, 30_000.0),
            f64::NAN,
            Some("options.overheadTokens"),
        ),
        (
            retry(1000.0, 30_000.0),
            -1.0,
            Some("options.overheadTokens"),
        ),
        (
            retry(1000.0, 30_000.0),
            f64::INFINITY,
            Some("options.overheadTokens"),
        ),
    ];
    for (policy, overhead, want) in cases {
        let mut s = setup(task("Read."), models());
        s.retry = Some(policy.clone());
        s.overhead_tokens = overhead;
        let mut reg = Registry::with_id_source(ids());
        let got = DelegateRun::start(&mut reg, &s, None, 1_000.0);
        match (got, want) {
            (Ok((_, step)), None) => assert!(
                matches!(step.next, RunNext::Request { .. }),
                "{policy:?} {overhead}: {step:?}"
            ),
            (Err(Error::InvalidInput { path, .. }), Some(want)) => {
                assert_eq!(path, want, "{policy:?} {overhead}");
                assert_eq!(reg.chain_count(), 0, "nothing started");
            }
            (got, want) => panic!("{policy:?} {overhead}: {got:?}, want {want:?}"),
        }
    }
}

#[test]
fn a_boundary_report_gives_the_runs_counts_and_the_size_sent_next() {
    let report = json!({ "outcome": "compacted", "tokensAfter": 2500.7,
        "run": { "boundaries": 3, "contextCompactions": 1, "contextDegraded": true, "droppedMessages": 4, "droppedTokens": 800 } });
    let r = BoundaryReport::from_value(report.clone()).unwrap();
    assert_eq!(
        r.run,
        RunTally {
            boundaries: 3,
            context_compactions: 1,
            context_degraded: true,
            dropped_messages: 4,
            dropped_tokens: 800,
        }
    );
    assert_eq!(r.tokens_after, 2501, "a size in tokens rounds up");
    assert_eq!(r.report, report);
    // without them: no counts yet, nothing carried
    let bare = BoundaryReport::from_value(json!({ "outcome": "unchanged" })).unwrap();
    assert_eq!((bare.run, bare.tokens_after), (RunTally::default(), 0));
    let e = BoundaryReport::from_value(json!({ "run": { "boundaries": "three" } })).unwrap_err();
    assert_eq!(e.code(), "INVALID_INPUT");
    // the run keeps the last report's counts (what the next request's hook continues)
    let mut d = Driven::start(&setup(task("Read."), models()), None);
    d.on(Event::Boundary(r.clone()));
    assert_eq!(d.run.tally(), &r.run);
}

#[test]
fn what_ended_a_run_is_in_its_error_with_the_parents_text() {
    // an overflow: the model, the size the provider stated
    let mut d = Driven::start(
        &setup(task("Read."), vec![model("small-8k", 8192.0, 1024.0)]),
        None,
    );
    d.on(boundary(1000, RunTally::default()));
    d.on(ended(failed(
        "prompt is too long: 8871 tokens > 8192 maximum",
    )));
    let r = d.result();
    assert_eq!(
        r.error,
        Some(RunError {
            code: "SUBAGENT_CONTEXT_OVERFLOW".into(),
            message: r.content.clone(),
            model_id: Some("local/small-8k".into()),
            tokens: Some(8871),
            hard_limit: None,
        })
    );
    // the other ends: the code, and the text the parent receives
    let ends: [(&str, Event, &str); 4] = [
        ("abort", Event::Abort, "ABORTED"),
        (
            "a provider failure",
            ended(failed("401 invalid api key")),
            "PROVIDER_ERROR",
        ),
        (
            "a failed write",
            Event::WriteFailed("EIO".into()),
            "WRITE_FAILED",
        ),
        (
            "a crash",
            Event::Crash(Thrown {
                message: "tool exploded".into(),
                ..Thrown::default()
            }),
            "INTERNAL",
        ),
    ];
    for (what, event, code) in ends {
        let mut d = Driven::start(
            &setup(task("Read."), vec![model("small-8k", 8192.0, 1024.0)]),
            None,
        );
        d.on(boundary(100, RunTally::default()));
        if matches!(d.on(event).next, RunNext::Stop) {
            d.on(ended(answer("late")));
        }
        let r = d.result();
        let e = r
            .error
            .clone()
            .unwrap_or_else(|| panic!("{what}: no error"));
        assert_eq!(
            (e.code.as_str(), e.message.as_str()),
            (code, r.content.as_str()),
            "{what}"
        );
        assert_eq!(r.code.as_deref(), Some(code), "{what}");
    }
}

#[test]
fn a_resume_continues_on_its_chains_model_and_sizes_its_seed_with_the_brief() {
    // the first run on medium-32k (Task.model); the resume names no model
    let mut t = task("Survey the modules.");
    t.model = Some("local/medium-32k".into());
    let mut first = Driven::start(&setup(t, models()), None);
    first.read_turn(1, 500);
    first.on(ended(answer("Money flows billing → tax.")));
    let r1 = first.result();
    let brief = "Can legacyRound go?";
    let mut t = task(brief);
    t.resume = r1.delegation_id.clone();
    let mut s = setup(t, models());
    s.task.tool_call_id = "task_2".into();
    s.overhead_tokens = 100.2;
    let (_, step) = DelegateRun::start(&mut first.reg, &s, Some(&r1.rows), 5_000.0).unwrap();
    match &step.next {
        RunNext::Request { model_id, .. } => assert_eq!(model_id, "local/medium-32k"),
        other => panic!("{other:?}"),
    }
    // the seed is sized with the request's overhead and the new brief it is sent with
    let seed = step
        .events
        .iter()
        .find_map(|e| match e {
            RunEvent::Seed { seed } => Some(seed.clone()),
            _ => None,
        })
        .expect("a seed event");
    let brief_tokens =
        delegate_context::tokens::estimate_tokens(&AgentMessage::user_text(brief, Some(5_000.0)));
    assert!(brief_tokens > 0);
    assert_eq!(seed.overhead_tokens, 101 + brief_tokens);
    assert_eq!(seed.hard_limit, 16_000, "medium-32k's");
    // the run's rows carry its Task call and its agent (by the registry's name for it)
    for row in &step.rows[1..] {
        assert_eq!(
            row.parent_tool_call_id.as_deref(),
            Some("task_2"),
            "{}",
            row.id
        );
        assert_eq!(row.agent_name.as_deref(), Some("explorer"), "{}", row.id);
    }
}

#[test]
fn a_fallback_must_hold_the_carried_context_below_its_hard_limit() {
    // small-8k fails at once (401); tiny-4k's hardLimit is 2,048
    let next = |tokens: u64| match after_failure(models(), tokens, "401 unauthorized").next {
        RunNext::Request { model_id, .. } => model_id,
        other => panic!("{other:?}"),
    };
    assert_eq!(next(2047), "local/tiny-4k");
    assert_eq!(
        next(2048),
        "local/medium-32k",
        "at the limit it does not fit"
    );
}
