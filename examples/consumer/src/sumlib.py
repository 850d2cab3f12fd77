"""The consumer project's library: the code its benchmark measures (and a pull request changes)."""


def sum_of_squares(n: int) -> int:
    total = 0
    for i in range(n):
        total += i * i
    return total
