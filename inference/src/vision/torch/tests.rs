use super::*;

#[test]
fn garbage_is_an_error_not_a_panic() {
    for bytes in [&b""[..], b"\x80\x02", b"PK\x03\x04 zip", &[0x80, 0x02, 0x8a, 0x0a, 1, 2, 3], &[0xff; 64]] {
        assert!(read_state_dict(bytes).is_err());
    }
}

#[test]
fn a_pickle_that_nests_or_copies_without_end_is_refused() {
    // PROTO 2, EMPTY_TUPLE, then TUPLE1 a thousand times: too deep.
    let mut deep = b"\x80\x02)".to_vec();
    deep.extend(std::iter::repeat_n(0x85, 1000));
    deep.push(b'.');
    assert!(run(&mut Reader { bytes: &deep, pos: 0 }).unwrap_err().to_string().contains("too deep"));
    // A list that doubles itself through the memo 30 times: 2^30 nodes.
    let mut doubling = b"\x80\x02]q\x00".to_vec();
    for _ in 0..30 {
        doubling.extend_from_slice(b"h\x00h\x00\x86q\x00");
    }
    doubling.push(b'.');
    assert!(run(&mut Reader { bytes: &doubling, pos: 0 }).unwrap_err().to_string().contains("too large"));
}

#[test]
fn a_permuted_view_is_read_in_row_major_order() {
    // Storage [0 1 2 3 4 5] seen as a 3×2 tensor with strides (1, 3): the transpose of a 2×3 matrix.
    let storage: Vec<u8> = (0..6).flat_map(|v| (v as f32).to_le_bytes()).collect();
    let kind = StorageKind::Float;
    let view =
        TensorRef { storage: Storage { kind, key: "0".into() }, offset: 0, shape: vec![3, 2], stride: vec![1, 3] };
    assert_eq!(view.read(&storage).unwrap().data, vec![0.0, 3.0, 1.0, 4.0, 2.0, 5.0]);
    let past = TensorRef { stride: vec![1, 4], ..view.clone() };
    assert!(past.read(&storage).is_err());
    // Zero strides over one element, claiming 2^40 elements: refused before any allocation.
    let broadcast = TensorRef { shape: vec![1 << 20, 1 << 20], stride: vec![0, 0], ..view };
    let err = broadcast.read(&storage).unwrap_err();
    assert!(err.to_string().contains("elements over a storage"), "{err}");
}

#[test]
fn a_pickle_calling_an_unknown_global_is_refused() {
    // PROTO 2, GLOBAL os system, ( 'ls' t R STOP
    let pickle = b"\x80\x02cos\nsystem\n(X\x02\x00\x00\x00lstR.";
    let err = run(&mut Reader { bytes: pickle, pos: 0 }).unwrap_err();
    assert!(err.to_string().contains("unsupported global os.system"), "{err}");
}
