package evidence

// Title heads the kernel evidence section of reports (compare, show,
// verify).
const Title = "kernel evidence (k.sys.*: the whole machine over the repetition)"
