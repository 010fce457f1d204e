/* Fault injection: what users do to a library that promises that nothing
 * hangs. A plain C program against the public API, run by CTest under a
 * time limit (tests/CMakeLists.txt registers every case):
 *
 *   fault_injection exit ALGORITHM      rank 1 calls exit(1) mid-loop
 *   fault_injection abort ALGORITHM     rank 1 calls MPI_Abort between Start and Wait
 *   fault_injection return ALGORITHM    rank 1 returns from main without MPI_Finalize
 *   fault_injection uncommitted ALG...  an uncommitted datatype on the last rank only:
 *                                       init fails on every rank with MPI_ERR_TYPE, and a
 *                                       valid request right after it works, per algorithm
 *   fault_injection stale ALGORITHM     freed communicators, requests and infos are errors,
 *                                       MPIX_Startall checks every request before starting any
 *   fault_injection config_differs      MPIX_Comm_init fails on every rank with
 *                                       MPIX_ERR_CONFIG (ranks launched with different MPIX_*)
 *   fault_injection tuning_refused      MPIX_Comm_init works, auto's init fails on every rank
 *                                       with MPIX_ERR_CONFIG naming the file and line
 *
 * The check modes print "fault_injection: ok" and return 0 when every rank
 * saw what it should. */
#include <mpi.h>
#include <mpix/mpix.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { block = 512, loop_iterations = 400, fault_at = 5 };

static int rank, size;
static int failures;

static void check(int ok, const char* what) {
  if (!ok) {
    fprintf(stderr, "fault_injection: rank %d: %s\n", rank, what);
    ++failures;
  }
}

static int error_class_of(int code) {
  int cls = code;
  MPI_Error_class(code, &cls);
  return cls;
}

static void print_error(const char* call, int code) {
  char text[MPIX_MAX_ERROR_STRING];
  int len = 0;
  MPIX_Error_string(code, text, &len);
  if (rank == 0) printf("%s: %s\n", call, text);
}

/* A uniform exchange of `block` ints per peer over the heap. */
typedef struct {
  int *send, *recv, *counts, *displs;
} Exchange;

static Exchange exchange_make(void) {
  Exchange x;
  x.send = malloc(sizeof(int) * block * size);
  x.recv = malloc(sizeof(int) * block * size);
  x.counts = malloc(sizeof(int) * size);
  x.displs = malloc(sizeof(int) * size);
  for (int p = 0; p < size; ++p) {
    x.counts[p] = block;
    x.displs[p] = p * block;
  }
  return x;
}

static void exchange_free(Exchange* x) {
  free(x->send);
  free(x->recv);
  free(x->counts);
  free(x->displs);
}

static MPIX_Info* forcing(const char* algorithm) {
  MPIX_Info* info = NULL;
  MPIX_Info_init(&info);
  MPIX_Info_set(info, "mpix_alltoallv_algorithm", algorithm);
  return info;
}

/* The registered algorithm that is MPI's own call, from the public listing. */
static const char* mpi_baseline(void) {
  int count = 0;
  MPIX_Alltoallv_algorithm_count(&count);
  for (int i = 0; i < count; ++i) {
    const char* name = NULL;
    int capabilities = 0;
    MPIX_Alltoallv_algorithm(i, &name, NULL, &capabilities);
    if (capabilities & MPIX_ALGORITHM_MPI_BASELINE) return name;
  }
  return "no_baseline_registered";
}

static int init_request(Exchange* x, MPI_Datatype type, MPIX_Comm* comm, const char* algorithm, MPIX_Request** r) {
  MPIX_Info* info = forcing(algorithm);
  const int rc = MPIX_Alltoallv_init(x->send, x->counts, x->displs, type, x->recv, x->counts, x->displs, type, comm,
                                     info, r);
  MPIX_Info_free(&info);
  return rc;
}

/* Runs the exchange `iterations` times and checks the data of each. */
static int run_and_check(MPIX_Request* r, Exchange* x, int iterations) {
  int wrong = 0;
  for (int it = 0; it < iterations; ++it) {
    for (int p = 0; p < size; ++p)
      for (int i = 0; i < block; ++i) x->send[p * block + i] = it * 100000 + rank * 1000 + p * 10 + i % 10;
    if (MPIX_Start(r) != MPI_SUCCESS || MPIX_Wait(r, MPI_STATUS_IGNORE) != MPI_SUCCESS) return 0;
    for (int p = 0; p < size; ++p)
      for (int i = 0; i < block; ++i) wrong += x->recv[p * block + i] != it * 100000 + p * 1000 + rank * 10 + i % 10;
  }
  return wrong == 0;
}

/* A rank that leaves without MPI_Finalize or aborts: the job must end, with
 * the leaving rank's exit code (expect_job_ends.sh checks it). Before it
 * leaves, rank 1 says the set-up succeeded and every iteration so far
 * delivered the right data: a crash on the way there is not "leaving". */
static int leave_mid_loop(const char* mode, const char* algorithm) {
  MPIX_Comm* comm = NULL;
  int ok = MPIX_Comm_init(&comm, MPI_COMM_WORLD) == MPI_SUCCESS;
  Exchange x = exchange_make();
  MPIX_Request* r = NULL;
  ok = ok && init_request(&x, MPI_INT, comm, algorithm, &r) == MPI_SUCCESS;
  if (!ok) {
    printf("fault_injection: WRONG: rank %d: set-up failed\n", rank);
    fflush(stdout);
    MPI_Abort(MPI_COMM_WORLD, 99);
  }
  int wrong = 0;
  for (int it = 0; it < loop_iterations; ++it) {
    for (int p = 0; p < size; ++p)
      for (int i = 0; i < block; ++i) x.send[p * block + i] = it * 100000 + rank * 1000 + p * 10 + i % 10;
    if (rank == 1 && it == fault_at) {
      /* To the file expect_job_ends.sh names, closed before leaving: the
       * launcher may kill the job at MPI_Abort before it forwards stdout. */
      const char* report = getenv("EXPECT_JOB_ENDS_REPORT");
      FILE* out = report ? fopen(report, "a") : NULL;
      fprintf(out ? out : stdout, "fault_injection: rank 1 leaves (%s) at iteration %d, %s\n", mode, it,
              wrong ? "WRONG data before" : "every earlier iteration correct");
      if (out) fclose(out);
      fflush(stdout);
    }
    MPIX_Start(r);
    if (rank == 1 && it == fault_at && strcmp(mode, "abort") == 0) MPI_Abort(MPI_COMM_WORLD, 3);
    MPIX_Wait(r, MPI_STATUS_IGNORE);
    if (rank == 1 && it == fault_at && strcmp(mode, "exit") == 0) exit(1);
    if (rank == 1 && it == fault_at && strcmp(mode, "return") == 0) return 1; /* main returns it */
    for (int p = 0; p < size; ++p)
      for (int i = 0; i < block; ++i) wrong += x.recv[p * block + i] != it * 100000 + p * 1000 + rank * 10 + i % 10;
  }
  /* Only reached if no rank left: the launcher did not notice. */
  MPIX_Request_free(&r);
  MPIX_Comm_free(&comm);
  exchange_free(&x);
  MPI_Finalize();
  return 0;
}

static void uncommitted(int argc, char** argv) {
  MPIX_Comm* comm = NULL;
  check(MPIX_Comm_init(&comm, MPI_COMM_WORLD) == MPI_SUCCESS, "MPIX_Comm_init failed");
  Exchange x = exchange_make();
  for (int a = 0; a < argc; ++a) {
    MPI_Datatype type;
    MPI_Type_contiguous(1, MPI_INT, &type);
    if (rank != size - 1) MPI_Type_commit(&type);
    MPIX_Request* r = NULL;
    const int rc = init_request(&x, type, comm, argv[a], &r);
    char what[256];
    snprintf(what, sizeof what, "%s: init with an uncommitted type on rank %d returned class %d, not MPI_ERR_TYPE",
             argv[a], size - 1, error_class_of(rc));
    check(error_class_of(rc) == MPI_ERR_TYPE, what);
    if (a == 0) print_error("uncommitted type", rc);
    if (rc == MPI_SUCCESS) MPIX_Request_free(&r);
    MPI_Type_free(&type);
    /* The communicator is still usable: a valid request right after. */
    snprintf(what, sizeof what, "%s: a valid request after the failed init does not work", argv[a]);
    check(init_request(&x, MPI_INT, comm, argv[a], &r) == MPI_SUCCESS && run_and_check(r, &x, 3), what);
    if (r != NULL) MPIX_Request_free(&r);
  }
  exchange_free(&x);
  MPIX_Comm_free(&comm);
}

static void stale(const char* algorithm) {
  MPIX_Comm *comm = NULL, *freed = NULL;
  MPIX_Comm_init(&comm, MPI_COMM_WORLD);
  MPIX_Comm_init(&freed, MPI_COMM_WORLD);
  MPIX_Comm* dangling = freed;
  MPIX_Comm_free(&freed);
  Exchange x = exchange_make();
  MPIX_Request* r = NULL;
  check(error_class_of(init_request(&x, MPI_INT, dangling, algorithm, &r)) == MPI_ERR_COMM,
        "MPIX_Alltoallv_init on a freed MPIX_Comm is not MPI_ERR_COMM");
  int node = 0;
  check(error_class_of(MPIX_Comm_get_node(dangling, &node, NULL, NULL, NULL)) == MPI_ERR_COMM,
        "MPIX_Comm_get_node on a freed MPIX_Comm is not MPI_ERR_COMM");
  /* A live handle of another kind where a communicator or a request is
     expected (what a freed handle's address holds once the memory is reused
     by an info): an error, never a dereference. */
  MPIX_Info* other = NULL;
  MPIX_Info_init(&other);
  check(error_class_of(MPIX_Comm_get_node((MPIX_Comm*)(void*)other, &node, NULL, NULL, NULL)) == MPI_ERR_COMM,
        "MPIX_Comm_get_node on an MPIX_Info is not MPI_ERR_COMM");
  check(error_class_of(MPIX_Start((MPIX_Request*)(void*)other)) == MPI_ERR_REQUEST,
        "MPIX_Start on an MPIX_Info is not MPI_ERR_REQUEST");
  MPIX_Comm* not_a_comm = (MPIX_Comm*)(void*)other;
  check(error_class_of(MPIX_Comm_free(&not_a_comm)) == MPI_ERR_COMM,
        "MPIX_Comm_free on an MPIX_Info is not MPI_ERR_COMM");
  check(MPIX_Info_free(&other) == MPI_SUCCESS, "the info was freed as a communicator");
  MPIX_Info* info = forcing(algorithm);
  MPIX_Info* dangling_info = info;
  MPIX_Info_free(&info);
  check(error_class_of(MPIX_Info_set(dangling_info, "k", "v")) == MPI_ERR_INFO,
        "MPIX_Info_set on a freed MPIX_Info is not MPI_ERR_INFO");

  check(init_request(&x, MPI_INT, comm, algorithm, &r) == MPI_SUCCESS, "init failed");
  /* The same request twice: an error, and neither started. */
  MPIX_Request* twice[2] = {r, r};
  check(error_class_of(MPIX_Startall(2, twice)) == MPI_ERR_REQUEST, "MPIX_Startall({r, r}) is not MPI_ERR_REQUEST");
  check(MPIX_Request_free(&r) == MPI_SUCCESS, "MPIX_Startall({r, r}) left r started");

  check(init_request(&x, MPI_INT, comm, algorithm, &r) == MPI_SUCCESS, "init failed");
  check(run_and_check(r, &x, 2), "wrong data");
  MPIX_Request* dangling_request = r;
  MPIX_Request_free(&r);
  check(error_class_of(MPIX_Start(dangling_request)) == MPI_ERR_REQUEST,
        "MPIX_Start on a freed request is not MPI_ERR_REQUEST");
  check(error_class_of(MPIX_Wait(dangling_request, MPI_STATUS_IGNORE)) == MPI_ERR_REQUEST,
        "MPIX_Wait on a freed request is not MPI_ERR_REQUEST");
  int flag = 0;
  check(error_class_of(MPIX_Test(dangling_request, &flag, MPI_STATUS_IGNORE)) == MPI_ERR_REQUEST,
        "MPIX_Test on a freed request is not MPI_ERR_REQUEST");
  exchange_free(&x);
  MPIX_Comm_free(&comm);
}

static void config_differs(void) {
  MPIX_Comm* comm = NULL;
  const int rc = MPIX_Comm_init(&comm, MPI_COMM_WORLD);
  check(error_class_of(rc) == MPIX_ERR_CONFIG, "MPIX_Comm_init with different MPIX_* values is not MPIX_ERR_CONFIG");
  print_error("MPIX_Comm_init", rc);
  if (rc == MPI_SUCCESS) MPIX_Comm_free(&comm);
}

/* Ranks launched with different values of the variables that may differ
 * (MPMD, see CMake): every algorithm named still runs and moves the right
 * data. */
static void per_rank_differs(int argc, char** argv) {
  MPIX_Comm* comm = NULL;
  check(MPIX_Comm_init(&comm, MPI_COMM_WORLD) == MPI_SUCCESS, "MPIX_Comm_init failed with per-rank values");
  Exchange x = exchange_make();
  for (int a = 0; a < argc; ++a) {
    MPIX_Request* r = NULL;
    char what[256];
    snprintf(what, sizeof what, "%s: wrong data or an error with per-rank values that differ", argv[a]);
    check(init_request(&x, MPI_INT, comm, argv[a], &r) == MPI_SUCCESS && run_and_check(r, &x, 5), what);
    if (r != NULL) MPIX_Request_free(&r);
  }
  exchange_free(&x);
  MPIX_Comm_free(&comm);
}

static void tuning_refused(void) {
  MPIX_Comm* comm = NULL;
  check(MPIX_Comm_init(&comm, MPI_COMM_WORLD) == MPI_SUCCESS, "MPIX_Comm_init failed");
  Exchange x = exchange_make();
  MPIX_Request* r = NULL;
  const int rc = init_request(&x, MPI_INT, comm, "auto", &r);
  check(error_class_of(rc) == MPIX_ERR_CONFIG, "auto with a bad tuning file is not MPIX_ERR_CONFIG");
  char text[MPIX_MAX_ERROR_STRING];
  int len = 0;
  MPIX_Error_string(rc, text, &len);
  check(strstr(text, "line ") != NULL, "the message names no line");
  print_error("MPIX_Alltoallv_init", rc);
  if (rc == MPI_SUCCESS) MPIX_Request_free(&r);
  /* A forced algorithm needs no parameters and still works. */
  check(init_request(&x, MPI_INT, comm, mpi_baseline(), &r) == MPI_SUCCESS && run_and_check(r, &x, 2),
        "a forced algorithm after the refusal does not work");
  if (r != NULL) MPIX_Request_free(&r);
  exchange_free(&x);
  MPIX_Comm_free(&comm);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char* mode = argc > 1 ? argv[1] : "";
  if (strcmp(mode, "exit") == 0 || strcmp(mode, "abort") == 0 || strcmp(mode, "return") == 0)
    return leave_mid_loop(mode, argc > 2 ? argv[2] : "auto");

  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  if (strcmp(mode, "uncommitted") == 0)
    uncommitted(argc - 2, argv + 2);
  else if (strcmp(mode, "stale") == 0)
    stale(argc > 2 ? argv[2] : "auto");
  else if (strcmp(mode, "per_rank_differs") == 0)
    per_rank_differs(argc - 2, argv + 2);
  else if (strcmp(mode, "config_differs") == 0)
    config_differs();
  else if (strcmp(mode, "tuning_refused") == 0)
    tuning_refused();
  else
    check(0, "unknown mode");
  MPI_Allreduce(MPI_IN_PLACE, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0 && failures == 0) printf("fault_injection: ok\n");
  MPI_Finalize();
  return failures == 0 ? 0 : 1;
}
