"""The namespaces torch ships without stubs (torch.linalg, torch.fft, torch.special) and the
Python-level torch functions (torch/functional.py): a known device is carried through,
named-tuple and tuple results carry it in every element, factories take it from device=,
device mixing is an error, and bare (and, where torch gives Any, CPU) tensors keep what
stock torch gives."""

from __future__ import annotations

from typing import Any

import torch
from typing_extensions import assert_type

from device_types import CPU, CUDA, MPS, Tensor


def linalg_norms(x: Tensor[MPS]) -> Tensor[MPS]:
    v = torch.linalg.vector_norm(x, dim=-1)
    assert_type(v, Tensor[MPS])
    m = torch.linalg.matrix_norm(x)
    assert_type(m, Tensor[MPS])
    assert_type(torch.linalg.norm(x), Tensor[MPS])
    return v + m.unsqueeze(-1)


def linalg_solve(a: Tensor[MPS], b: Tensor[MPS]) -> Tensor[MPS]:
    assert_type(torch.linalg.inv(a), Tensor[MPS])
    assert_type(torch.linalg.det(a), Tensor[MPS])
    out = torch.linalg.solve(a, b)
    assert_type(out, Tensor[MPS])
    return out


def linalg_decompositions(x: Tensor[MPS]) -> Tensor[MPS]:
    eigh = torch.linalg.eigh(x)
    assert_type(eigh.eigenvalues, Tensor[MPS])
    assert_type(eigh.eigenvectors, Tensor[MPS])
    u, s, vh = torch.linalg.svd(x)
    assert_type(u, Tensor[MPS])
    assert_type(torch.linalg.svd(x).Vh, Tensor[MPS])
    q, r = torch.linalg.qr(x)
    assert_type(r, Tensor[MPS])
    sign, logabsdet = torch.linalg.slogdet(x)
    assert_type(logabsdet, Tensor[MPS])
    return u @ torch.diag_embed(s) @ vh + q @ r + (sign * logabsdet).sum()


def fft_transforms(x: Tensor[MPS]) -> Tensor[MPS]:
    spectrum = torch.fft.rfft(x)
    assert_type(spectrum, Tensor[MPS])
    assert_type(torch.fft.fftn(x), Tensor[MPS])
    assert_type(torch.fft.fftshift(x), Tensor[MPS])
    out = torch.fft.irfft(spectrum, n=x.shape[-1])
    assert_type(out, Tensor[MPS])
    return out


def fft_factories(x: Tensor[CUDA]) -> Tensor[CUDA]:
    assert_type(torch.fft.fftfreq(4), Any)  # a CPU result where torch gives Any stays Any
    assert_type(torch.fft.rfftfreq(4, device=x.device), Tensor[CUDA])
    freq = torch.fft.fftfreq(2, device="cuda")
    assert_type(freq, Tensor[CUDA])
    return x * freq


def special_functions(x: Tensor[MPS]) -> Tensor[MPS]:
    assert_type(torch.special.erf(x), Tensor[MPS])
    assert_type(torch.special.expit(x), Tensor[MPS])
    assert_type(torch.special.xlogy(x, 2.0), Tensor[MPS])
    assert_type(torch.special.log_softmax(x, dim=-1), Tensor[MPS])
    out = torch.special.logsumexp(x, dim=-1)
    assert_type(out, Tensor[MPS])
    return out


def einsum_and_contractions(x: Tensor[MPS], y: Tensor[MPS]) -> Tensor[MPS]:
    out = torch.einsum("bij,bjk->bik", x, y)
    assert_type(out, Tensor[MPS])
    assert_type(torch.tensordot(x, y, dims=1), Tensor[MPS])
    assert_type(torch.cdist(x, y), Tensor[MPS])
    assert_type(torch.norm(x), Tensor[MPS])
    return out


def tuple_results(x: Tensor[MPS], y: Tensor[MPS]) -> Tensor[MPS]:
    parts = torch.split(x, 1)
    assert_type(parts, tuple[Tensor[MPS], ...])
    a, b = torch.broadcast_tensors(x, y)
    assert_type(b, Tensor[MPS])
    gx, gy = torch.meshgrid(x.flatten(), y.flatten(), indexing="ij")
    assert_type(gy, Tensor[MPS])
    lu, pivots = torch.lu(x)
    assert_type(lu, Tensor[MPS])
    return parts[0] + a + (gx + gy).sum() + lu.sum() + pivots.sum()


def variadic_functions(x: Tensor[MPS], y: Tensor[MPS]) -> Tensor[MPS]:
    assert_type(torch.cartesian_prod(x.flatten(), y.flatten()), Tensor[MPS])
    assert_type(torch.atleast_2d(x), Tensor[MPS])
    assert_type(torch.atleast_3d(x, y), tuple[Tensor[MPS], ...])
    out = torch.stft(x.flatten(), 4, return_complex=True)
    assert_type(out, Tensor[MPS])
    return out.abs()


def built_from_device_tensors(x: Tensor[CUDA], y: Tensor[CUDA]) -> Tensor[CUDA]:
    # These create tensors on the input's device inside torch, which fake tensors of a
    # device this build lacks cannot do: they run where CUDA is real.
    assert_type(torch.block_diag(x[0], y[0]), Tensor[CUDA])
    assert_type(torch.chain_matmul(x[0], y[0]), Tensor[CUDA])
    u, s, v = torch.svd_lowrank(x[0], q=1)
    assert_type(v, Tensor[CUDA])
    return (u * s).sum() + v.sum() + x


def unique_results(x: Tensor[CUDA]) -> Tensor[CUDA]:
    values = torch.unique(x)
    assert_type(values, Tensor[CUDA])
    values, inverse = torch.unique(x, return_inverse=True)
    assert_type(inverse, Tensor[CUDA])
    values, counts = torch.unique(x, return_counts=True)
    assert_type(counts, Tensor[CUDA])
    return values.sum() + inverse.sum() + counts.sum()


def bare_and_cpu_inputs_stay_as_stock_torch(x: torch.Tensor, host: Tensor[CPU]) -> None:
    assert_type(torch.linalg.vector_norm(x), Any)
    assert_type(torch.fft.fft(x), Any)
    assert_type(torch.special.erf(x), Any)
    assert_type(torch.block_diag(x[0], x[0]), Any)
    assert_type(torch.unique(x), Any)
    assert_type(torch.split(x, 1), tuple[torch.Tensor, ...])
    assert_type(torch.einsum("bij->bji", x), torch.Tensor)
    # Where torch gives Any, a CPU tensor keeps Any too: ordinary code reuses names
    # (``a, b = torch.unique(t, return_counts=True); a = a.tolist()``).
    assert_type(torch.linalg.vector_norm(host), Any)
    # the same through each op's first overload, its host reading (its own parameters on
    # the CPU: what an editor's signature help shows first), and through the guard after it
    assert_type(torch.linalg.vector_norm(host, 2, dim=-1, keepdim=True), Any)
    assert_type(torch.linalg.det(host), Any)
    assert_type(torch.fft.fft(host, n=4, norm="ortho"), Any)
    assert_type(torch.special.xlogy(host, 2.0), Any)
    assert_type(torch.unique(host, return_counts=True), Any)
    assert_type(torch.split(host, 1), tuple[Tensor[CPU], ...])


def mixed_devices_are_errors(x: Tensor[MPS], y: Tensor[CPU]) -> None:
    torch.linalg.solve(x, y)  # type: ignore[arg-type]  # pyright: ignore[reportArgumentType, reportCallIssue]
    torch.special.xlogy(x, y)  # type: ignore[arg-type]  # pyright: ignore[reportArgumentType, reportCallIssue]
    torch.cartesian_prod(x, y)  # type: ignore[misc]  # pyright: ignore[reportArgumentType]


def host_round_trip_is_an_error(x: Tensor[MPS]) -> Tensor[MPS]:
    return torch.linalg.vector_norm(x).cpu()  # type: ignore[return-value]  # pyright: ignore[reportReturnType]
