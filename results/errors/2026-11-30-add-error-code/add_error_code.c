/* What MPI_Add_error_code on a predefined class gives, read back. */
#include <mpi.h>
#include <stdio.h>
static void show(const char *what, int code) {
    char text[MPI_MAX_ERROR_STRING]; int len = 0, cls = -1;
    int rs = MPI_Error_string(code, text, &len), rc = MPI_Error_class(code, &cls);
    printf("%s: code 0x%x; MPI_Error_string rc %d: \"%.*s\"; MPI_Error_class rc %d: %d (MPI_ERR_COUNT is %d)\n",
           what, (unsigned)code, rs, len, text, rc, cls, MPI_ERR_COUNT);
}
int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    int code = 0;
    int ra = MPI_Add_error_code(MPI_ERR_COUNT, &code);
    int rs = MPI_Add_error_string(code, "library message: recvcount = -4 is negative");
    printf("MPI_Add_error_code rc %d, MPI_Add_error_string rc %d\n", ra, rs);
    show("added code", code);
    int dyn = code | 0x40000000;
    int rs2 = MPI_Add_error_string(dyn, "library message with the dynamic bit");
    printf("MPI_Add_error_string on code|0x40000000 rc %d\n", rs2);
    show("with the dynamic bit", dyn);
    int klass = 0, kcode = 0;
    MPI_Add_error_class(&klass); MPI_Add_error_code(klass, &kcode);
    MPI_Add_error_string(kcode, "a code of a new class");
    show("a new class's code", kcode);
    MPI_Finalize();
    return 0;
}
