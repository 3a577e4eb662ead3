//! Reads the float tensors of a legacy (non-zip) torch `.pth` state dict, with no Python and no torch.
//!
//! The legacy format is five things back to back: three small header pickles (magic number, protocol
//! version, system info), the state-dict pickle, a pickle listing the storage keys, then for each key in
//! that order an `i64` element count and the raw little-endian elements. The state-dict pickle names its
//! storages through persistent ids and builds each tensor with `torch._utils._rebuild_tensor_v2`.
//!
//! The pickle machine below knows only the opcodes such files use and builds no Python object: it refuses
//! anything else, so hostile bytes end in an error, never in code execution or a panic. Values are copied
//! into the memo (not shared), which is enough because a state dict never mutates a value it refers to again.

use std::collections::HashMap;

use anyhow::{Context, anyhow, bail, ensure};

/// The magic number of the first header pickle of a legacy torch file.
const MAGIC: u128 = 0x1950a86a20f9469cfc6c;
/// Bounds for hostile input: stack depth and memo size far above what a state dict needs.
const MAX_STACK: usize = 100_000;
const MAX_MEMO: usize = 1_000_000;
/// Values nest at most this deep (a state dict needs 4), which also keeps recursion over values shallow.
const MAX_DEPTH: usize = 32;
/// Values copied through the memo, counted in nodes: bounds the memory a self-referencing pickle can make.
const COPY_BUDGET: usize = 1_000_000;
/// A dimension count no real weight reaches.
const MAX_RANK: usize = 8;

/// A float tensor of the state dict, in row-major order.
#[derive(Debug, Clone, PartialEq)]
pub struct Tensor {
    /// Dimensions.
    pub shape: Vec<usize>,
    /// Elements.
    pub data: Vec<f32>,
}

/// Reads every float tensor of a legacy torch state dict; integer buffers (`num_batches_tracked`) are skipped.
pub fn read_state_dict(bytes: &[u8]) -> anyhow::Result<HashMap<String, Tensor>> {
    let mut input = Reader { bytes, pos: 0 };
    match run(&mut input).context("reading the magic number")? {
        Value::Int(magic) if magic == MAGIC as i128 => {}
        _ => bail!("not a legacy torch file (wrong magic number)"),
    }
    run(&mut input).context("reading the protocol version")?;
    run(&mut input).context("reading the system info")?;
    let state = run(&mut input).context("reading the state dict")?;
    let Value::List(keys) = run(&mut input).context("reading the storage keys")? else {
        bail!("the storage keys are not a list");
    };
    let mut storages: HashMap<String, &[u8]> = HashMap::new();
    for key in keys {
        let Value::Str(key) = key else { bail!("a storage key is not a string") };
        let count = input.take(8).context("reading a storage size")?;
        let count = i64::from_le_bytes(count.try_into().expect("8 bytes"));
        let count = usize::try_from(count).map_err(|_| anyhow!("negative storage size"))?;
        // An integer storage (`num_batches_tracked`) is 8 bytes an element; its bytes are skipped.
        let width = storage_width(&state, &key).unwrap_or(4);
        let len = count.checked_mul(width).ok_or_else(|| anyhow!("storage size overflows"))?;
        storages.insert(key, input.take(len).context("reading a storage")?);
    }
    let Value::Dict(entries) = state else { bail!("the state dict is not a dict") };
    let mut tensors = HashMap::new();
    for (name, value) in entries {
        let Value::Str(name) = name else { bail!("a state dict key is not a string") };
        let Value::Tensor(t) = value else { bail!("{name} is not a tensor") };
        if t.storage.kind != StorageKind::Float {
            continue;
        }
        let data = storages.get(&t.storage.key).ok_or_else(|| anyhow!("{name}: storage {} missing", t.storage.key))?;
        tensors.insert(name.clone(), t.read(data).with_context(|| format!("reading {name}"))?);
    }
    Ok(tensors)
}

/// The element width of the storage `key` as the state dict declares it.
fn storage_width(state: &Value, key: &str) -> Option<usize> {
    let Value::Dict(entries) = state else { return None };
    entries.iter().find_map(|(_, v)| match v {
        Value::Tensor(t) if t.storage.key == key => Some(t.storage.kind.width()),
        _ => None,
    })
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum StorageKind {
    Float,
    Long,
}

impl StorageKind {
    fn width(self) -> usize {
        match self {
            StorageKind::Float => 4,
            StorageKind::Long => 8,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
struct Storage {
    kind: StorageKind,
    key: String,
}

#[derive(Debug, Clone, PartialEq)]
struct TensorRef {
    storage: Storage,
    offset: usize,
    shape: Vec<usize>,
    stride: Vec<usize>,
}

impl TensorRef {
    /// Copies the tensor's elements out of its storage into row-major order. Strides are followed as
    /// given: weights converted from TensorFlow are saved as permuted views (e.g. strides `(1, 32, 288, 96)`).
    fn read(&self, storage: &[u8]) -> anyhow::Result<Tensor> {
        let numel = storage.len() / 4;
        let mut count = 1usize;
        let mut last = self.offset;
        for (dim, stride) in self.shape.iter().zip(&self.stride) {
            count = count.checked_mul(*dim).ok_or_else(|| anyhow!("tensor size overflows"))?;
            let reach = dim.saturating_sub(1).checked_mul(*stride).ok_or_else(|| anyhow!("stride overflows"))?;
            last = last.checked_add(reach).ok_or_else(|| anyhow!("stride overflows"))?;
        }
        ensure!(count == 0 || last < numel, "tensor runs past its storage");
        // A saved weight never has more elements than its storage; a zero stride could claim any
        // number of them (and an allocation to match) over one stored element.
        ensure!(count <= numel, "tensor has {count} elements over a storage of {numel}");
        let element = |i: usize| {
            let at = 4 * i;
            f32::from_le_bytes([storage[at], storage[at + 1], storage[at + 2], storage[at + 3]])
        };
        let mut data = Vec::with_capacity(count);
        let mut index = vec![0usize; self.shape.len()];
        for _ in 0..count {
            let at = self.offset + index.iter().zip(&self.stride).map(|(i, s)| i * s).sum::<usize>();
            data.push(element(at));
            // Advance the row-major index, last dimension fastest.
            for d in (0..index.len()).rev() {
                index[d] += 1;
                if index[d] < self.shape[d] {
                    break;
                }
                index[d] = 0;
            }
        }
        Ok(Tensor { shape: self.shape.clone(), data })
    }
}

/// What the restricted pickle machine builds.
#[derive(Debug, Clone, PartialEq)]
enum Value {
    None,
    /// A boolean (`requires_grad`); its value is not needed.
    Bool,
    Int(i128),
    Str(String),
    Tuple(Vec<Value>),
    List(Vec<Value>),
    Dict(Vec<(Value, Value)>),
    Global(String, String),
    Storage(Storage),
    Tensor(TensorRef),
    Mark,
}

struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> anyhow::Result<&'a [u8]> {
        let end =
            self.pos.checked_add(n).filter(|end| *end <= self.bytes.len()).ok_or_else(|| anyhow!("truncated file"))?;
        let out = &self.bytes[self.pos..end];
        self.pos = end;
        Ok(out)
    }

    fn byte(&mut self) -> anyhow::Result<u8> {
        Ok(self.take(1)?[0])
    }

    fn u16(&mut self) -> anyhow::Result<u16> {
        Ok(u16::from_le_bytes(self.take(2)?.try_into().expect("2 bytes")))
    }

    fn u32(&mut self) -> anyhow::Result<u32> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().expect("4 bytes")))
    }

    fn line(&mut self) -> anyhow::Result<String> {
        let rest = &self.bytes[self.pos..];
        let end = rest.iter().position(|b| *b == b'\n').ok_or_else(|| anyhow!("truncated file"))?;
        let text = std::str::from_utf8(&rest[..end]).context("a name is not UTF-8")?.to_owned();
        self.pos += end + 1;
        Ok(text)
    }

    fn string(&mut self, len: usize) -> anyhow::Result<String> {
        Ok(std::str::from_utf8(self.take(len)?).context("a string is not UTF-8")?.to_owned())
    }
}

/// Runs one pickle to its STOP and returns the value it leaves.
fn run(input: &mut Reader<'_>) -> anyhow::Result<Value> {
    let mut machine = Machine { stack: Vec::new(), memo: HashMap::new(), budget: COPY_BUDGET };
    loop {
        ensure!(machine.stack.len() <= MAX_STACK && machine.memo.len() <= MAX_MEMO, "pickle too large");
        let op = input.byte()?;
        if op == b'.' {
            return machine.stack.pop().ok_or_else(|| anyhow!("empty pickle"));
        }
        if !(machine.scalar(op, input)? || machine.memo_op(op, input)? || machine.container(op)?) {
            bail!("unsupported pickle opcode 0x{op:02x}");
        }
    }
}

/// The pickle machine's stack and memo, and what copying from the memo may still cost.
struct Machine {
    stack: Vec<Value>,
    memo: HashMap<u32, Value>,
    budget: usize,
}

impl Machine {
    /// A copy of `value`, paid from the budget: a pickle cannot grow itself by copying its memo.
    fn copy(budget: &mut usize, value: &Value) -> anyhow::Result<Value> {
        *budget = budget.checked_sub(value.weight()).ok_or_else(|| anyhow!("pickle too large"))?;
        Ok(value.clone())
    }

    /// The opcodes that push one value read from the input; `false` for any other.
    fn scalar(&mut self, op: u8, input: &mut Reader<'_>) -> anyhow::Result<bool> {
        let value = match op {
            0x80 => {
                input.byte()?; // PROTO: the version changes nothing for the opcodes read here
                return Ok(true);
            }
            b'(' => Value::Mark,
            b'N' => Value::None,
            0x88 | 0x89 => Value::Bool,
            b'K' => Value::Int(input.byte()?.into()),
            b'M' => Value::Int(input.u16()?.into()),
            b'J' => Value::Int(i32::from_le_bytes(input.take(4)?.try_into().expect("4 bytes")).into()),
            0x8a => {
                let len = input.byte()? as usize;
                ensure!(len <= 16, "integer too long");
                let bytes = input.take(len)?;
                let mut buf = [if bytes.last().is_some_and(|b| b & 0x80 != 0) { 0xff } else { 0 }; 16];
                buf[..len].copy_from_slice(bytes);
                Value::Int(i128::from_le_bytes(buf))
            }
            b'X' => {
                let len = input.u32()? as usize;
                Value::Str(input.string(len)?)
            }
            0x8c => {
                let len = input.byte()? as usize;
                Value::Str(input.string(len)?)
            }
            b'c' => {
                let module = input.line()?;
                let name = input.line()?;
                Value::Global(module, name)
            }
            _ => return Ok(false),
        };
        self.stack.push(value);
        Ok(true)
    }

    /// Putting the top into the memo and getting a memo entry back; `false` for any other opcode.
    fn memo_op(&mut self, op: u8, input: &mut Reader<'_>) -> anyhow::Result<bool> {
        match op {
            b'q' | b'r' => {
                let key = if op == b'q' { input.byte()?.into() } else { input.u32()? };
                let value = Self::copy(&mut self.budget, top(&self.stack)?)?;
                self.memo.insert(key, value);
            }
            b'h' | b'j' => {
                let key = if op == b'h' { input.byte()?.into() } else { input.u32()? };
                let stored = self.memo.get(&key).ok_or_else(|| anyhow!("unknown memo {key}"))?;
                let value = Self::copy(&mut self.budget, stored)?;
                self.stack.push(value);
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// Building tuples, dicts and lists, and the persistent ids, reductions and builds over them;
    /// `false` for any other opcode.
    fn container(&mut self, op: u8) -> anyhow::Result<bool> {
        let stack = &mut self.stack;
        match op {
            b')' => stack.push(Value::Tuple(Vec::new())),
            b'}' => stack.push(Value::Dict(Vec::new())),
            b']' => stack.push(Value::List(Vec::new())),
            b't' => {
                let items = pop_to_mark(stack)?;
                shallow(&items)?;
                stack.push(Value::Tuple(items));
            }
            0x85..=0x87 => {
                let n = usize::from(op - 0x84);
                ensure!(stack.len() >= n, "stack underflow");
                let items = stack.split_off(stack.len() - n);
                shallow(&items)?;
                stack.push(Value::Tuple(items));
            }
            b's' => {
                let value = pop(stack)?;
                let key = pop(stack)?;
                shallow(&[&key, &value])?;
                dict_mut(stack)?.push((key, value));
            }
            b'u' => {
                let items = pop_to_mark(stack)?;
                shallow(&items)?;
                let mut items = items.into_iter();
                let dict = dict_mut(stack)?;
                while let (Some(k), Some(v)) = (items.next(), items.next()) {
                    dict.push((k, v));
                }
            }
            b'a' => {
                let value = pop(stack)?;
                shallow(&[&value])?;
                list_mut(stack)?.push(value);
            }
            b'e' => {
                let items = pop_to_mark(stack)?;
                shallow(&items)?;
                list_mut(stack)?.extend(items);
            }
            b'Q' => {
                let pid = pop(stack)?;
                stack.push(persistent(pid)?);
            }
            b'R' => {
                let args = pop(stack)?;
                let callable = pop(stack)?;
                stack.push(reduce(callable, args)?);
            }
            b'b' => {
                pop(stack)?; // BUILD: the state (`_metadata`) of the OrderedDict is not needed
                top(stack)?;
            }
            _ => return Ok(false),
        }
        Ok(true)
    }
}

impl Value {
    /// Nesting depth; every value built here is at most [`MAX_DEPTH`] deep, so this recursion is shallow.
    fn depth(&self) -> usize {
        match self {
            Value::Tuple(items) | Value::List(items) => 1 + items.iter().map(Value::depth).max().unwrap_or(0),
            Value::Dict(entries) => 1 + entries.iter().map(|(k, v)| k.depth().max(v.depth())).max().unwrap_or(0),
            _ => 0,
        }
    }

    /// Nodes, the cost of copying the value.
    fn weight(&self) -> usize {
        match self {
            Value::Tuple(items) | Value::List(items) => 1 + items.iter().map(Value::weight).sum::<usize>(),
            Value::Dict(entries) => 1 + entries.iter().map(|(k, v)| k.weight() + v.weight()).sum::<usize>(),
            _ => 1,
        }
    }
}

/// Refuses to put values into a container when that would nest deeper than [`MAX_DEPTH`].
fn shallow<V: std::borrow::Borrow<Value>>(items: &[V]) -> anyhow::Result<()> {
    ensure!(items.iter().all(|v| v.borrow().depth() < MAX_DEPTH), "pickle nests too deep");
    Ok(())
}

fn top(stack: &[Value]) -> anyhow::Result<&Value> {
    stack.last().ok_or_else(|| anyhow!("stack underflow"))
}

fn pop(stack: &mut Vec<Value>) -> anyhow::Result<Value> {
    match stack.pop() {
        Some(Value::Mark) | None => bail!("stack underflow"),
        Some(value) => Ok(value),
    }
}

fn pop_to_mark(stack: &mut Vec<Value>) -> anyhow::Result<Vec<Value>> {
    let mark = stack.iter().rposition(|v| *v == Value::Mark).ok_or_else(|| anyhow!("no mark"))?;
    let items = stack.split_off(mark + 1);
    stack.pop();
    Ok(items)
}

fn dict_mut(stack: &mut [Value]) -> anyhow::Result<&mut Vec<(Value, Value)>> {
    match stack.last_mut() {
        Some(Value::Dict(entries)) => Ok(entries),
        _ => bail!("setting an item on a non-dict"),
    }
}

fn list_mut(stack: &mut [Value]) -> anyhow::Result<&mut Vec<Value>> {
    match stack.last_mut() {
        Some(Value::List(items)) => Ok(items),
        _ => bail!("appending to a non-list"),
    }
}

/// A persistent id `('storage', torch.XStorage, key, device, numel)` names a storage in the data section.
fn persistent(pid: Value) -> anyhow::Result<Value> {
    let Value::Tuple(items) = pid else { bail!("persistent id is not a tuple") };
    match items.as_slice() {
        [Value::Str(tag), Value::Global(module, class), Value::Str(key), ..]
            if tag == "storage" && module == "torch" =>
        {
            let kind = match class.as_str() {
                "FloatStorage" => StorageKind::Float,
                "LongStorage" => StorageKind::Long,
                other => bail!("unsupported storage type {other}"),
            };
            Ok(Value::Storage(Storage { kind, key: key.clone() }))
        }
        _ => bail!("unsupported persistent id"),
    }
}

/// Calls one of the few callables a state dict uses; any other global is refused.
fn reduce(callable: Value, args: Value) -> anyhow::Result<Value> {
    let Value::Global(module, name) = callable else { bail!("calling a non-global") };
    let Value::Tuple(args) = args else { bail!("call arguments are not a tuple") };
    match (module.as_str(), name.as_str()) {
        ("collections", "OrderedDict") if args.is_empty() => Ok(Value::Dict(Vec::new())),
        ("torch._utils", "_rebuild_tensor_v2") => rebuild_tensor(args),
        _ => bail!("unsupported global {module}.{name}"),
    }
}

/// `_rebuild_tensor_v2(storage, offset, size, stride, requires_grad, hooks)`.
fn rebuild_tensor(args: Vec<Value>) -> anyhow::Result<Value> {
    let mut args = args.into_iter();
    let (Some(Value::Storage(storage)), Some(offset), Some(Value::Tuple(size)), Some(Value::Tuple(stride))) =
        (args.next(), args.next(), args.next(), args.next())
    else {
        bail!("malformed tensor");
    };
    ensure!(size.len() == stride.len() && size.len() <= MAX_RANK, "malformed tensor shape");
    let offset = index(&offset)?;
    let shape = size.iter().map(index).collect::<anyhow::Result<_>>()?;
    let stride = stride.iter().map(index).collect::<anyhow::Result<_>>()?;
    Ok(Value::Tensor(TensorRef { storage, offset, shape, stride }))
}

fn index(value: &Value) -> anyhow::Result<usize> {
    match value {
        Value::Int(n) => usize::try_from(*n).map_err(|_| anyhow!("bad tensor index {n}")),
        _ => bail!("a tensor index is not an integer"),
    }
}

#[cfg(test)]
mod tests;
