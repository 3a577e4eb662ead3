//! The network: workbaskets, their transitions, the entry, and the graph rules (every
//! workbasket reachable from the entry, a terminal reachable from every workbasket).

use std::collections::{HashMap, HashSet, VecDeque};

use serde_json::Value;
use uuid::Uuid;

use super::codes;
use super::model::{Transition, Workbasket};
use super::rules::{required_ref, uuid_ref};
use crate::domain::document::CONFIG_PATH;
use crate::domain::document::context::{Context, array};
use crate::domain::document::report::join;

/// What the network check found.
pub(crate) struct Network {
    /// The entry workbasket, when it names one.
    pub(crate) entry: Option<Uuid>,
    /// All workbaskets, when every one of them is sound.
    pub(crate) workbaskets: Option<Vec<Workbasket>>,
    /// The ids of workbaskets whose id is sound, for references from views.
    pub(crate) known: HashSet<Uuid>,
}

struct Draft {
    path: String,
    id: Option<Uuid>,
    label: Option<String>,
    order: Option<f64>,
    terminal: bool,
    transitions: Vec<Option<Transition>>,
    /// Targets that name a sound workbasket id (filled once all ids are known).
    targets: Vec<Uuid>,
}

pub(crate) fn check_network(cx: &mut Context<'_>, network: Option<&Value>) -> Network {
    let base = join(CONFIG_PATH, "network");
    let list = join(&base, "workbaskets");
    let drafts: Vec<Draft> = array(network.and_then(|n| n.get("workbaskets")))
        .iter()
        .enumerate()
        .map(|(index, workbasket)| read_workbasket(cx, workbasket, join(&list, index)))
        .collect();
    let known: HashSet<Uuid> = drafts.iter().filter_map(|d| d.id).collect();
    let mut drafts = drafts;
    for (index, workbasket) in array(network.and_then(|n| n.get("workbaskets"))).iter().enumerate() {
        let draft = &mut drafts[index];
        for (t, transition) in array(workbasket.get("transitions")).iter().enumerate() {
            let path = join(&join(&join(&draft.path, "transitions"), t), "targetWorkbasketId");
            let Some(target) = uuid_ref(cx.report, transition.get("targetWorkbasketId"), &path) else { continue };
            if known.contains(&target) {
                draft.targets.push(target);
            } else {
                cx.report.push(path, codes::UNKNOWN_WORKBASKET, "names no workbasket of the network");
                draft.transitions[t] = None;
            }
        }
    }

    let entry_path = join(&base, "entryWorkbasketId");
    let entry = uuid_ref(cx.report, network.and_then(|n| n.get("entryWorkbasketId")), &entry_path).filter(|id| {
        let found = known.contains(id);
        if !found {
            cx.report.push(&entry_path, codes::UNKNOWN_WORKBASKET, "names no workbasket of the network");
        }
        found
    });
    check_graph(cx, &drafts, entry, &list);

    let workbaskets = drafts
        .into_iter()
        .map(|d| {
            Some(Workbasket {
                id: d.id?,
                label: d.label?,
                order: d.order?,
                terminal: d.terminal,
                transitions: d.transitions.into_iter().collect::<Option<Vec<_>>>()?,
            })
        })
        .collect::<Option<Vec<_>>>();
    Network { entry, workbaskets, known }
}

fn read_workbasket(cx: &mut Context<'_>, value: &Value, path: String) -> Draft {
    let mut draft = Draft {
        id: None,
        label: None,
        order: None,
        terminal: false,
        transitions: Vec::new(),
        targets: Vec::new(),
        path,
    };
    let Some(object) = value.as_object() else { return draft };
    let path = draft.path.clone();
    draft.id = cx.id(object.get("id"), &join(&path, "id"));
    draft.label = required_ref(cx, object, "label", &path);
    draft.order = object.get("order").and_then(Value::as_f64);
    draft.terminal = object.get("terminal").and_then(Value::as_bool) == Some(true);
    let transitions = array(object.get("transitions"));
    if draft.terminal && !transitions.is_empty() {
        cx.report.push(
            join(&path, "transitions"),
            codes::TERMINAL_HAS_TRANSITIONS,
            "a terminal workbasket has no transitions",
        );
    }
    let list = join(&path, "transitions");
    draft.transitions = transitions
        .iter()
        .enumerate()
        .map(|(index, transition)| {
            let path = join(&list, index);
            let object = transition.as_object()?;
            let id = cx.id(object.get("id"), &join(&path, "id"));
            let label = required_ref(cx, object, "label", &path);
            let target = object.get("targetWorkbasketId").and_then(Value::as_str).and_then(|t| Uuid::try_parse(t).ok());
            Some(Transition { id: id?, target_workbasket_id: target?, label: label? })
        })
        .collect();
    draft
}

/// Reachability over the sound workbaskets. Unknown targets and edges out of terminal
/// workbaskets are left out (they are reported elsewhere, and a process stops at a terminal).
fn check_graph(cx: &mut Context<'_>, drafts: &[Draft], entry: Option<Uuid>, list: &str) {
    if !drafts.iter().any(|d| d.terminal) {
        cx.report.push(list, codes::NO_TERMINAL, "needs at least one terminal workbasket");
    }
    let index: HashMap<Uuid, usize> = drafts.iter().enumerate().filter_map(|(i, d)| Some((d.id?, i))).collect();
    let edges: Vec<Vec<usize>> = drafts
        .iter()
        .map(|d| if d.terminal { Vec::new() } else { d.targets.iter().filter_map(|t| index.get(t).copied()).collect() })
        .collect();

    if let Some(start) = entry.and_then(|id| index.get(&id).copied()) {
        let reached = search(&[start], &edges);
        for (_, draft) in drafts.iter().enumerate().filter(|(i, d)| d.id.is_some() && !reached[*i]) {
            cx.report.push(&draft.path, codes::UNREACHABLE, "cannot be reached from the entry workbasket");
        }
    }

    let terminals: Vec<usize> = (0..drafts.len()).filter(|&i| drafts[i].terminal && drafts[i].id.is_some()).collect();
    if terminals.is_empty() {
        return;
    }
    let mut reverse = vec![Vec::new(); drafts.len()];
    for (from, targets) in edges.iter().enumerate() {
        for &to in targets {
            reverse[to].push(from);
        }
    }
    let finishing = search(&terminals, &reverse);
    for (_, draft) in drafts.iter().enumerate().filter(|(i, d)| d.id.is_some() && !d.terminal && !finishing[*i]) {
        cx.report.push(&draft.path, codes::NO_TERMINAL_REACHABLE, "no terminal workbasket can be reached from here");
    }
}

/// Breadth-first search from `starts`; which nodes were reached. Linear in nodes and edges.
fn search(starts: &[usize], edges: &[Vec<usize>]) -> Vec<bool> {
    let mut reached = vec![false; edges.len()];
    let mut queue: VecDeque<usize> = VecDeque::new();
    for &start in starts {
        if !reached[start] {
            reached[start] = true;
            queue.push_back(start);
        }
    }
    while let Some(node) = queue.pop_front() {
        for &next in &edges[node] {
            if !reached[next] {
                reached[next] = true;
                queue.push_back(next);
            }
        }
    }
    reached
}
