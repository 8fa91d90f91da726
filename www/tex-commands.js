// Generated from src/lesson/tex.rs (the one list of lesson math commands) by
// tests/lesson_elements.rs with KPLAY_UPDATE_DOCS=1: do not edit by hand.
export const TEX_STRUCTURE = ['frac', 'sqrt', 'text', 'mathrm', 'operatorname', 'mathbb', 'bar', 'tilde', 'hat', 'quad', 'left', 'right'];
export const TEX_WORDS = { max: 'max', min: 'min', sup: 'sup', inf: 'inf', lim: 'lim', argmin: 'argmin', argmax: 'argmax', log: 'log', ln: 'ln', exp: 'exp', sign: 'sign', diag: 'diag', tr: 'tr', card: 'card' };
export const TEX_SYMBOLS = { top: '⊤', nabla: '∇', partial: '∂', infty: '∞', cdot: '·', times: '×', le: '≤', leq: '≤', ge: '≥', geq: '≥', neq: '≠', approx: '≈', to: '→', mapsto: '↦', in: '∈', subset: '⊂', mid: '∣', pm: '±', ldots: '…', cdots: '⋯', lVert: '‖', rVert: '‖', lvert: '|', rvert: '|', langle: '⟨', rangle: '⟩' };
export const TEX_LETTERS = { alpha: 'α', beta: 'β', gamma: 'γ', delta: 'δ', epsilon: 'ϵ', varepsilon: 'ε', eta: 'η', theta: 'θ', kappa: 'κ', lambda: 'λ', mu: 'μ', nu: 'ν', xi: 'ξ', pi: 'π', rho: 'ρ', sigma: 'σ', tau: 'τ', phi: 'ϕ', varphi: 'φ', chi: 'χ', psi: 'ψ', omega: 'ω', Gamma: 'Γ', Delta: 'Δ', Theta: 'Θ', Lambda: 'Λ', Phi: 'Φ', Psi: 'Ψ', Omega: 'Ω', Sigma: 'Σ' };
export const TEX_LARGE = { sum: '∑', prod: '∏' };
