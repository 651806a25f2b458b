#include <stdio.h>

int add(int a, int b) {
    return a + b;
}

int sub(int a, int b) {
    return a - b; /* never negative here */
}

int main(void) {
    printf("%d\n", add(1, 2));
    printf("%d\n", sub(3, 2));
    return 0;
}
